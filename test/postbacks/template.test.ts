import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { ConversionPayload } from '../../src/postbacks/postbacks.model';
import { retryDelayMs } from '../../src/postbacks/postback-sender';
import { renderTemplate, templateProblems } from '../../src/postbacks/postback-template';

const payload = (over: Partial<ConversionPayload> = {}): ConversionPayload => ({
  id: '01JCONVERSION0000000000000',
  event: 'purchase',
  click_id: '01JCLICK000000000000000000',
  gclid: 'Cj0KCQ',
  campaign_id: 'camp-1',
  value: 12.5,
  currency: 'EUR',
  order_id: 'A&B=1',
  matched: true,
  source: 'api',
  created_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('renderTemplate', () => {
  test('replaces every macro with its URL-encoded value', () => {
    const url = renderTemplate(
      'https://ads.example/pb?cid={click_id}&g={gclid}&e={event}&v={value}&c={currency}&o={order_id}&camp={campaign_id}&id={conversion_id}',
      payload(),
    );
    const params = new URL(url).searchParams;
    expect(Object.fromEntries(params)).toEqual({
      cid: '01JCLICK000000000000000000',
      g: 'Cj0KCQ',
      e: 'purchase',
      v: '12.5',
      c: 'EUR',
      o: 'A&B=1',
      camp: 'camp-1',
      id: '01JCONVERSION0000000000000',
    });
  });

  test('missing values render empty', () => {
    const url = renderTemplate('https://ads.example/pb?g={gclid}&v={value}', payload({ gclid: null, value: null }));
    expect(url).toBe('https://ads.example/pb?g=&v=');
  });

  test('any value round-trips through the query and never changes the host or adds parameters', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (orderId, event) => {
        const url = new URL(renderTemplate('https://ads.example/pb?o={order_id}&e={event}', payload({ order_id: orderId, event })));
        expect(url.host).toBe('ads.example');
        expect([...url.searchParams.keys()]).toEqual(['o', 'e']);
        expect(url.searchParams.get('o')).toBe(orderId);
        expect(url.searchParams.get('e')).toBe(event);
      }),
    );
  });
});

describe('templateProblems', () => {
  test.each(['https://ads.example/pb?cid={click_id}', 'http://ads.example:8080/{event}/x', 'https://ads.example'])('%s is usable', (url) => {
    expect(templateProblems(url)).toEqual([]);
  });

  test.each([
    ['ftp://ads.example/pb', 'absolute http(s)'],
    ['/relative/{click_id}', 'absolute http(s)'],
    ['javascript:alert(1)', 'absolute http(s)'],
    ['https://{click_id}.ads.example/pb', 'host'],
    ['https://ads.example:{value}/pb', 'host'],
    ['https://user:pass@ads.example/pb', 'credentials'],
    ['https://ads.example/pb?x={unknown}', 'unknown macro {unknown}'],
    ['https:///pb', 'host'],
    ['https:///{click_id}.evil.example/pb', 'host'],
    ['https:\\\\{click_id}.evil.example/pb', 'absolute http(s)'],
  ])('%s is refused (%s)', (url, expected) => {
    const problems = templateProblems(url);
    expect(problems.join(' ')).toContain(expected);
  });
});

test('a backslash ends the host, as the URL parser reads it', () => {
  const template = 'https://ads.example\\@{click_id}.evil.example/';
  expect(templateProblems(template)).toEqual([]);
  expect(new URL(renderTemplate(template, payload())).host).toBe('ads.example');
});

describe('retryDelayMs', () => {
  test('doubles from the base, is capped, and jitters by at most 20 percent', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const delay = retryDelayMs(attempt, { baseDelayMs: 2000, maxDelayMs: 3_600_000, random: () => r });
        const nominal = Math.min(3_600_000, 2000 * 2 ** (attempt - 1));
        expect(delay).toBeGreaterThanOrEqual(nominal * 0.8);
        expect(delay).toBeLessThanOrEqual(nominal * 1.2);
      }),
    );
  });
});
