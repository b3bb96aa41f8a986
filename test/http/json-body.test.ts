import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { HttpError, toValidationBody } from '../../src/http/errors';
import { LONE_SURROGATE, MAX_JSON_DEPTH, nestsDeeperThan, NOT_JSON, parseJsonBody, PROTO_NAME, TOO_DEEP } from '../../src/http/json-body';

/** The nesting of a parsed value, as the scanner must see it in its text. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Strings made mostly of what a naive bracket count trips on. */
const trickyString = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', 'a', '\u00e9', '\ud83d\ude00', '\n') });
const leaf = fc.oneof(fc.jsonValue({ maxDepth: 3 }), trickyString);
/** A value wrapped in up to 40 arrays and objects, whose keys are tricky too. */
const nested = fc
  .tuple(leaf, fc.array(fc.tuple(fc.boolean(), trickyString), { maxLength: 40 }))
  .map(([inner, wrappers]) => wrappers.reduce<unknown>((value, [asArray, key]) => (asArray ? [value, key] : { [key]: value, x: [key] }), inner));

function refusal(text: string, options?: Parameters<typeof parseJsonBody>[1]): { formErrors: string[]; fieldErrors: Record<string, string[]> } {
  try {
    parseJsonBody(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return JSON.parse(JSON.stringify((error as HttpError).body.error));
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

describe('nestsDeeperThan', () => {
  test('property: it sees the depth JSON.parse builds, whatever the strings, keys and spacing hold', () => {
    fc.assert(
      fc.property(nested, fc.integer({ min: 0, max: 45 }), fc.constantFrom(undefined, 2, '\t'), (value, limit, space) => {
        const text = JSON.stringify(value, null, space);
        expect(nestsDeeperThan(text, limit)).toBe(depthOf(JSON.parse(text)) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  test('brackets inside strings, escaped quotes and backslashes do not count', () => {
    expect(nestsDeeperThan('["[[[[", "\\"[[[[", "\\\\", ["{{{{"]]', 2)).toBe(false);
    expect(nestsDeeperThan('["\\\\", [[]]]', 2)).toBe(true);
    expect(nestsDeeperThan('{"a\\"[[":{"b":[1]}}', 2)).toBe(true);
    expect(nestsDeeperThan('"just a string ]]]"', 0)).toBe(false);
    expect(nestsDeeperThan('[]', 0)).toBe(true);
  });

  test('a body nested 100,000 levels is seen in one pass and nothing is built', () => {
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    expect(nestsDeeperThan(deep, MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('parseJsonBody', () => {
  const nestedTo = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  test(`${MAX_JSON_DEPTH} levels parse; ${MAX_JSON_DEPTH + 1} are the form error, as is text that is not JSON`, () => {
    expect(parseJsonBody(nestedTo(MAX_JSON_DEPTH))).toEqual(JSON.parse(nestedTo(MAX_JSON_DEPTH)));
    expect(refusal(nestedTo(MAX_JSON_DEPTH + 1))).toEqual({ formErrors: [TOO_DEEP], fieldErrors: {} });
    expect(refusal(`{"a":${nestedTo(100_000)}}`)).toEqual({ formErrors: [TOO_DEEP], fieldErrors: {} });
    expect(refusal('{"a":')).toEqual({ formErrors: [NOT_JSON], fieldErrors: {} });
  });

  test('a lone surrogate in a string or a field name is refused under its dotted path, pairs are kept', () => {
    expect(refusal('{"events":[{"name":"ok"},{"name":"\\ud800"}],"device_id":"\\udfffx"}')).toEqual({
      formErrors: [],
      fieldErrors: { 'events.1.name': [LONE_SURROGATE], device_id: [LONE_SURROGATE] },
    });
    expect(refusal('{"params":{"k\\udc00":"v"}}')).toEqual({ formErrors: [], fieldErrors: { 'params.k\ufffd': [LONE_SURROGATE] } });
    expect(refusal('"\\ud83d"')).toEqual({ formErrors: [LONE_SURROGATE], fieldErrors: {} });
    // The low half before the high one is two lone surrogates, not a pair.
    expect(refusal('{"a":"\\ude00\\ud83d"}').fieldErrors).toEqual({ a: [LONE_SURROGATE] });
    expect(parseJsonBody('{"a":"\\ud83d\\ude00 \\u00e9 \\u005b","\\ud83d\\ude00":1}')).toEqual({ a: '\u{1f600} \u00e9 [', '\u{1f600}': 1 });
  });

  test('for a report stored as received, each lone surrogate becomes U+FFFD, in names too', () => {
    expect(parseJsonBody('{"a":"x\\ud800y","b":["\\udfff"],"k\\ud800":{"c":"\\ud83d\\ude00"}}', { loneSurrogates: 'replace' })).toEqual({
      a: 'x\ufffdy',
      b: ['\ufffd'],
      'k\ufffd': { c: '\u{1f600}' },
    });
    expect(parseJsonBody('"\\ud800"', { loneSurrogates: 'replace' })).toBe('\ufffd');
  });

  test('a field named __proto__ is refused wherever it is and however it is spelled', () => {
    expect(refusal('{"__proto__":{"polluted":true}}')).toEqual({ formErrors: [], fieldErrors: { __proto__: [PROTO_NAME] } });
    expect(refusal('{"a":[{"\\u005f_proto__":1}]}').fieldErrors).toEqual({ 'a.0.__proto__': [PROTO_NAME] });
    expect(refusal('{"__proto__":1}', { loneSurrogates: 'replace' }).fieldErrors).toEqual({ __proto__: [PROTO_NAME] });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(parseJsonBody('{"constructor":1,"toString":"x","a":"__proto__"}')).toEqual({ constructor: 1, toString: 'x', a: '__proto__' });
  });
});

describe('toValidationBody', () => {
  test('fields named like what every object inherits are ordinary fields', () => {
    const shaped = toValidationBody(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a.constructor'].map((field) => ({ path: `/${field.replaceAll('.', '/')}`, message: 'unknown field' })));
    expect(JSON.parse(JSON.stringify(shaped))).toEqual({
      formErrors: [],
      fieldErrors: JSON.parse('{"__proto__":["unknown field"],"constructor":["unknown field"],"toString":["unknown field"],"hasOwnProperty":["unknown field"],"a.constructor":["unknown field"]}'),
    });
  });
});
