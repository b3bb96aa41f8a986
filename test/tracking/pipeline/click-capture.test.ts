import { describe, expect, test } from 'bun:test';
import { capturedClick } from '../../../src/tracking/pipeline/click-capture';
import type { JournaledClick } from '../../../src/tracking/tracking.model';

describe('capturedClick', () => {
  const journaled: JournaledClick = {
    id: '01JCLICK0000000000000000000',
    org_id: 'org',
    created_at: '2026-11-25T10:00:00.000Z',
    next_hop_url: 'https://a.com/?svc_click_id=01JCLICK0000000000000000000',
    user_agent: 'Agent\0/1',
    referer: 'https://ref.example/\0x',
  };

  test('the query string journaled beside the click fills its columns and params', () => {
    const click = capturedClick({
      k: 'c',
      r: journaled,
      q: 'url=https%3A%2F%2Fa.com&gclid=G-1&matchtype=e&network=zz&device=m&keyword=red+shoes&utm_source=news%20letter&svc_click_id=OLD&force_transparent=true&u=x&empty=',
    });
    expect(click.gclid).toBe('G-1');
    expect(click.match_type).toBe('e');
    expect(click.network).toBeNull(); // not one of its allowed values
    expect(click.device).toBe('m');
    expect(click.keyword).toBe('red shoes');
    // Control parameters and empty values are not kept as extra parameters.
    expect(click.params).toEqual({ utm_source: 'news letter' });
    expect(click.link_id).toBeNull(); // the defaults complete what was not journaled
  });

  test('U+0000 is dropped from headers and query values (Postgres text cannot hold it)', () => {
    const click = capturedClick({ k: 'c', r: journaled, q: 'keyword=a%00b&x%00y=1' });
    expect(click.user_agent).toBe('Agent/1');
    expect(click.referer).toBe('https://ref.example/x');
    expect(click.keyword).toBe('ab');
    expect(click.params).toEqual({ xy: '1' });
  });

  test('a line journaled with its fields already captured (no query string) is stored as it is', () => {
    const click = capturedClick({ k: 'c', r: { ...journaled, gclid: 'OLD-LINE', params: { a: '1' } } });
    expect(click.gclid).toBe('OLD-LINE');
    expect(click.params).toEqual({ a: '1' });
  });

  test('limits: a gclid past 256 characters is dropped, values are cut at 512, at most 32 extras', () => {
    const extras = Array.from({ length: 40 }, (_, i) => `p${i}=v`).join('&');
    const click = capturedClick({ k: 'c', r: journaled, q: `gclid=${'g'.repeat(257)}&keyword=${'k'.repeat(600)}&${extras}` });
    expect(click.gclid).toBeNull();
    expect(click.keyword).toHaveLength(512);
    expect(Object.keys(click.params!)).toHaveLength(32);
  });
});
