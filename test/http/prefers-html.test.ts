import { describe, expect, test } from 'bun:test';
import { alwaysJsonPath, prefersHtml } from '../../src/http/prefers-html';

describe('prefersHtml: a browser navigation gets a page, everything else JSON', () => {
  test("Chromium's and Firefox's navigation Accept headers prefer HTML", () => {
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8')).toBe(true);
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(true);
  });

  test('a client naming JSON, naming nothing, or accepting anything keeps JSON', () => {
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
    expect(prefersHtml('text/html;q=0.5, application/json')).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml('')).toBe(false);
    expect(prefersHtml(null)).toBe(false);
  });

  test('weights are read, and a bad weight counts for nothing', () => {
    expect(prefersHtml('application/json;q=0.4, text/html;q=0.6')).toBe(true);
    expect(prefersHtml('text/html;q=0')).toBe(false);
    expect(prefersHtml('text/html;q=abc')).toBe(false);
    expect(prefersHtml('TEXT/HTML')).toBe(true);
  });

  test('the APIs, /c, /i and the postback stay JSON whatever is asked', () => {
    for (const path of ['/api/v1/links', '/api', '/c/x', '/c', '/i/camp', '/.well-known/attribution-reporting/report-event-attribution', '/postback']) {
      expect(alwaysJsonPath(path)).toBe(true);
    }
    for (const path of ['/', '/nope', '/links/x/y', '/cats', '/install', '/apis']) expect(alwaysJsonPath(path)).toBe(false);
  });
});
