import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { capturedClick } from '../../../src/tracking/pipeline/click-capture';
import { clickControls } from '../../../src/tracking/redirect/click-query';
import { rawQuery } from '../../../src/tracking/query-string';
import { FORCE_TRANSPARENT_PARAM, LANDING_PARAMS, type JournaledClick } from '../../../src/tracking/tracking.model';

/** What the redirect read before clickControls: every parameter into a map (rawQuery), then the control ones. */
function controlsThroughMap(url: string) {
  const query = rawQuery(url);
  const landingParam = LANDING_PARAMS.find((name) => (query.get(name) ?? '') !== '');
  const start = url.indexOf('?');
  const hashAt = url.indexOf('#', start);
  return {
    query: start < 0 ? '' : url.slice(start + 1, hashAt < 0 ? undefined : hashAt),
    landingParam,
    landingRaw: landingParam ? query.get(landingParam)! : '',
    force: query.get(FORCE_TRANSPARENT_PARAM),
  };
}

describe('clickControls', () => {
  test('the first landing alias with a value wins, in the order of preference; values stay raw', () => {
    const controls = clickControls('http://t.example.com/c/s?r=https%3A%2F%2Fr.com&u=&url=https%253A%252F%252Fa.com&gclid=G#frag');
    expect(controls).toEqual({ query: 'r=https%3A%2F%2Fr.com&u=&url=https%253A%252F%252Fa.com&gclid=G', landingParam: 'url', landingRaw: 'https%253A%252F%252Fa.com', force: undefined });
    expect(clickControls('http://t.example.com/c/s?dest=https%3A%2F%2Fd.com&redirect=https%3A%2F%2Fx.com').landingParam).toBe('redirect');
  });

  test('names are form-decoded; a repeated name keeps its first value, even an empty one', () => {
    const controls = clickControls('http://t.example.com/c/s?%75rl=https%3A%2F%2Fa.com&url=https%3A%2F%2Fb.com&force%5Ftransparent=&force_transparent=true');
    expect(controls.landingRaw).toBe('https%3A%2F%2Fa.com');
    expect(controls.force).toBe('');
    expect(clickControls('http://t.example.com/c/s?url=&url=https%3A%2F%2Fb.com').landingParam).toBeUndefined();
  });

  test('no query, an empty query, a query that is only a fragment', () => {
    const none = { query: '', landingParam: undefined, landingRaw: '', force: undefined };
    expect(clickControls('http://t.example.com/c/s')).toEqual(none);
    expect(clickControls('http://t.example.com/c/s?')).toEqual(none);
    expect(clickControls('http://t.example.com/c/s?#url=https://a.com')).toEqual(none);
    expect(clickControls('http://t.example.com/c/s?force_transparent')).toEqual({ ...none, query: 'force_transparent', force: '' });
  });

  test('property: the same controls as reading every parameter into a map', () => {
    // Control names, plain and percent-encoded, among other names and characters that matter to a query string.
    const name = fc.constantFrom('url', 'u', 'r', 'dest', 'redirect', 'force_transparent', '%75rl', 'force%5Ftransparent', 'u+', 'gclid', 'x', '');
    const value = fc.string({ unit: fc.constantFrom('a', '=', '%', '2', 'F', '+', ':', '/', 'h'), maxLength: 12 });
    const piece = fc.oneof(fc.tuple(name, value).map(([n, v]) => `${n}=${v}`), name);
    const url = fc
      .tuple(fc.array(piece, { maxLength: 8 }), fc.option(fc.string({ maxLength: 6 })))
      .map(([pieces, fragment]) => `http://t.example.com/c/s?${pieces.join('&')}${fragment === null ? '' : `#${fragment}`}`);
    fc.assert(
      fc.property(url, (requestUrl) => {
        expect(clickControls(requestUrl)).toEqual(controlsThroughMap(requestUrl));
      }),
      { numRuns: 5000 },
    );
  });
});

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
