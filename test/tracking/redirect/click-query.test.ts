import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { clickControls } from '../../../src/tracking/redirect/click-query';
import { rawQuery } from '../../../src/tracking/query-string';
import { FORCE_TRANSPARENT_PARAM, LANDING_PARAMS } from '../../../src/tracking/tracking.model';

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
