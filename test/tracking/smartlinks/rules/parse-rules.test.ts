import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { MAX_RULES_BYTES, parseRules } from '../../../../src/tracking/smartlinks/rules/parse-rules';
import { RuleSetSchema, type RuleSet } from '../../../../src/tracking/smartlinks/rules/rules.model';
import { denormalised, ruleSetArb } from './arbitraries';
import { SCHEMA_EXAMPLE } from './schema-example';

const ok = (input: unknown): RuleSet => {
  const parsed = parseRules(input);
  if (!parsed.ok) throw new Error(`refused: ${JSON.stringify(parsed.fieldErrors)}`);
  return parsed.value;
};
const errors = (input: unknown, path?: string) => {
  const parsed = parseRules(input, path);
  if (parsed.ok) throw new Error(`accepted: ${JSON.stringify(input)}`);
  return parsed.fieldErrors;
};
/** The errors of a single rule {if, then} placed third in a rule set. */
const ruleErrors = (rule: unknown) => errors([{ if: {}, then: { block: 404 } }, { if: {}, then: { block: 404 } }, rule]);

describe('parseRules: accepted and normalised', () => {
  test('the example of the schema, as given', () => {
    const set = SCHEMA_EXAMPLE;
    expect(ok(set)).toEqual(set as RuleSet);
  });

  test('a bare array is version 1; single values become lists; codes take their case; the zone defaults to UTC', () => {
    expect(
      ok([
        {
          if: { country: 'de', os: 'iOS', ip_type: 'Mobile', language: 'EN', weekdays: 'Sat', region: 'bavaria', city: 'MÜNCHEN', in_app: false, params: { ref: '*' }, hours: { from: 9, to: 17 } },
          then: { deep_link: 'myapp://product/42', fallback: 'https://shop.example.com/42' },
        },
        { if: { country: ['us', 'US', 'ca'] }, then: { url: 'https://shop.example.com' } },
        { if: { hours: { from: 0, to: 0, tz: 'america/new_york' } }, then: { deep_link: 'intent://open#Intent;scheme=myapp;package=com.example;end' } },
      ]),
    ).toEqual({
      version: 1,
      rules: [
        {
          if: { country: ['DE'], os: ['ios'], ip_type: ['mobile'], language: ['en'], weekdays: ['sat'], region: ['bavaria'], city: ['MÜNCHEN'], in_app: false, params: { ref: ['*'] }, hours: { from: 9, to: 17, tz: 'UTC' } },
          then: { deep_link: 'myapp://product/42', fallback: 'https://shop.example.com/42' },
        },
        { if: { country: ['US', 'CA'] }, then: { url: 'https://shop.example.com' } },
        { if: { hours: { from: 0, to: 0, tz: 'America/New_York' } }, then: { deep_link: 'intent://open#Intent;scheme=myapp;package=com.example;end' } },
      ],
    });
  });

  test('an empty rule list, {} conditions, 100 rules, 10 variants and XK are accepted', () => {
    expect(ok({ version: 1, rules: [], fallback: { url: 'https://shop.example.com' } })).toEqual({ version: 1, rules: [], fallback: { url: 'https://shop.example.com' } });
    expect(ok([{ if: {}, then: { block: 403 } }]).rules[0]!.if).toEqual({});
    expect(ok(Array.from({ length: 100 }, (_, i) => ({ name: `r${i}`, if: {}, then: { block: 404 } }))).rules).toHaveLength(100);
    const variants = Array.from({ length: 10 }, (_, i) => ({ url: `https://v${i}.example`, weight: i + 1 }));
    expect(ok([{ if: {}, then: { variants } }]).rules[0]!.then).toEqual({ variants });
    expect(ok([{ if: { country: 'xk' }, then: { block: 403 } }]).rules[0]!.if.country).toEqual(['XK']);
  });

  test('a parameter named __proto__ is an own key of the stored params', () => {
    const parsed = ok(JSON.parse('[{"if":{"params":{"__proto__":"x"}},"then":{"block":403}}]'));
    expect(Object.keys(parsed.rules[0]!.if.params!)).toEqual(['__proto__']);
    expect(JSON.stringify(parsed.rules[0]!.if.params)).toBe('{"__proto__":["x"]}');
  });
});

describe('parseRules: refused, with the exact path', () => {
  test('the rule set itself', () => {
    expect(errors('route everything')).toEqual({ rules: ['must be an array of rules or an object {version: 1, rules: [...], fallback: {url}}'] });
    expect(errors(null)).toEqual({ rules: ['must be an array of rules or an object {version: 1, rules: [...], fallback: {url}}'] });
    expect(errors({ rules: [] })).toEqual({ 'rules.version': ['is required'] });
    expect(errors({ version: 2, rules: [] })).toEqual({ 'rules.version': ['must be 1'] });
    expect(errors({ version: 1 })).toEqual({ 'rules.rules': ['is required'] });
    expect(errors({ version: 1, rules: {} })).toEqual({ 'rules.rules': ['must be an array of at most 100 rules'] });
    expect(errors(Array.from({ length: 101 }, () => ({ if: {}, then: { block: 404 } })))).toEqual({ 'rules.rules': ['must be an array of at most 100 rules'] });
    expect(errors({ version: 1, rules: [], else: 'x' })).toEqual({ 'rules.else': ['unknown field'] });
    expect(errors({ version: 1, rules: [], fallback: 'https://x.example' })).toEqual({ 'rules.fallback': ['must be an object {url}'] });
    expect(errors({ version: 1, rules: [], fallback: { url: 'ftp://x.example' } })).toEqual({ 'rules.fallback.url': ['must be an absolute http(s) URL'] });
    expect(errors({ version: 1, rules: [], fallback: { url: 'https://x.example', status: 302 } })).toEqual({ 'rules.fallback.status': ['unknown field'] });
  });

  test('a rule: its shape, name and uniqueness', () => {
    expect(ruleErrors('rule')).toEqual({ 'rules.rules.2': ['must be an object {name, if, then}'] });
    expect(ruleErrors({ then: { block: 404 } })).toEqual({ 'rules.rules.2.if': ['is required'] });
    expect(ruleErrors({ if: {} })).toEqual({ 'rules.rules.2.then': ['is required'] });
    expect(ruleErrors({ if: {}, then: { block: 404 }, else: {} })).toEqual({ 'rules.rules.2.else': ['unknown field'] });
    expect(ruleErrors({ name: '', if: {}, then: { block: 404 } })).toEqual({ 'rules.rules.2.name': ['must be 1 to 64 characters'] });
    expect(ruleErrors({ name: 'x'.repeat(65), if: {}, then: { block: 404 } })).toEqual({ 'rules.rules.2.name': ['must be 1 to 64 characters'] });
    expect(ruleErrors({ name: 7, if: {}, then: { block: 404 } })).toEqual({ 'rules.rules.2.name': ['must be 1 to 64 characters'] });
    expect(ruleErrors({ name: 'a\nb', if: {}, then: { block: 404 } })).toEqual({ 'rules.rules.2.name': ['must not contain control characters'] });
    const twice = [{ name: 'a', if: {}, then: { block: 404 } }, { name: 'b', if: {}, then: { block: 404 } }, { name: 'a', if: {}, then: { block: 403 } }];
    expect(errors(twice)).toEqual({ 'rules.rules.2.name': ['must be unique: rule 0 has the same name'] });
  });

  test('every condition', () => {
    const at = (condition: string) => `rules.rules.2.if.${condition}`;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ country: 'XX' }, at('country'), '"XX" is not an ISO 3166-1 alpha-2 country code such as US or DE'],
      [{ country: ['US', 'UK'] }, at('country'), '"UK" is not an ISO 3166-1 alpha-2 country code such as US or DE'],
      [{ country: 'USA' }, at('country'), '"USA" is not an ISO 3166-1 alpha-2 country code such as US or DE'],
      [{ country: [] }, at('country'), 'must not be empty'],
      [{ country: 49 }, at('country'), 'must be a string or an array of strings'],
      [{ country: ['US', 1] }, at('country'), 'entry 1 must be a string'],
      [{ region: '' }, at('region'), 'names must be 1 to 100 characters'],
      [{ city: 'x'.repeat(101) }, at('city'), 'names must be 1 to 100 characters'],
      [{ city: 'Ber\u0000lin' }, at('city'), '"Ber\\u0000lin" contains control characters'],
      [{ os: 'windows' }, at('os'), '"windows" is not one of ios, android, desktop'],
      [{ ip_type: 'cable' }, at('ip_type'), '"cable" is not one of residential, mobile, datacenter'],
      [{ language: 'en-US' }, at('language'), '"en-US" is not a primary language subtag such as en or fil (regions such as en-US are not compared)'],
      [{ language: 'e' }, at('language'), '"e" is not a primary language subtag such as en or fil (regions such as en-US are not compared)'],
      [{ in_app: 'yes' }, at('in_app'), 'must be true or false'],
      [{ params: [] }, at('params'), 'must be an object of parameter names, each with a value or a list of values ("*" matches any value)'],
      [{ params: {} }, at('params'), 'must name at least one parameter'],
      [{ params: { utm_source: 5 } }, at('params.utm_source'), 'must be a string or an array of strings'],
      [{ params: { utm_source: [] } }, at('params.utm_source'), 'must not be empty'],
      [{ params: { utm_source: 'x'.repeat(257) } }, at('params.utm_source'), 'values must be at most 256 characters'],
      [{ params: { ['p'.repeat(65)]: 'x' } }, at('params'), `parameter names must be 1 to 64 characters: "${'p'.repeat(40)}..."`],
      [{ params: { '': 'x' } }, at('params'), 'parameter names must be 1 to 64 characters'],
      [{ params: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, '*'])) }, at('params'), 'must name at most 20 parameters'],
      [{ hours: '9-17' }, at('hours'), 'must be an object {from, to, tz}'],
      [{ hours: { from: 24, to: 6 } }, at('hours.from'), 'must be an integer from 0 to 23'],
      [{ hours: { from: 1, to: 1.5 } }, at('hours.to'), 'must be an integer from 0 to 23'],
      [{ hours: { from: 1, to: '6' } }, at('hours.to'), 'must be an integer from 0 to 23'],
      [{ hours: { to: 6 } }, at('hours.from'), 'is required'],
      [{ hours: { from: 1, to: 6, tz: 'Mars/Olympus' } }, at('hours.tz'), 'must be an IANA time zone such as Europe/Berlin or UTC'],
      [{ hours: { from: 1, to: 6, tz: '+02:00' } }, at('hours.tz'), 'must be an IANA time zone such as Europe/Berlin or UTC'],
      [{ hours: { from: 1, to: 6, tz: 2 } }, at('hours.tz'), 'must be an IANA time zone such as Europe/Berlin or UTC'],
      [{ hours: { from: 1, to: 6, zone: 'UTC' } }, at('hours.zone'), 'unknown field'],
      [{ weekdays: 'monday' }, at('weekdays'), '"monday" is not one of mon, tue, wed, thu, fri, sat, sun'],
      [{ device: 'phone' }, at('device'), 'unknown condition: use country, region, city, os, ip_type, language, in_app, params, hours, weekdays'],
    ];
    for (const [conditions, path, message] of cases) expect(ruleErrors({ if: conditions, then: { block: 404 } })).toEqual({ [path]: [message] });
    expect(ruleErrors({ if: [], then: { block: 404 } })).toEqual({ 'rules.rules.2.if': ['must be an object of conditions ({} matches every request)'] });
    expect(ruleErrors({ if: { country: Array.from({ length: 301 }, () => 'US') }, then: { block: 404 } })).toEqual({ 'rules.rules.2.if.country': ['must have at most 300 values'] });
  });

  test('every action', () => {
    const at = (field: string) => `rules.rules.2.then${field}`;
    const cases: [unknown, string, string][] = [
      ['https://x.example', at(''), 'must be an object with one action: url, store, deep_link, variants or block'],
      [{}, at(''), 'must name one action: url, store, deep_link, variants or block'],
      [{ url: 'https://a.example', block: 403 }, at(''), 'must name exactly one action, not url and block'],
      [{ url: 'https://a.example', go: 1 }, at('.go'), 'unknown field'],
      [{ url: 'javascript:alert(1)' }, at('.url'), 'must be an absolute http(s) URL'],
      [{ url: '/relative' }, at('.url'), 'must be an absolute http(s) URL'],
      [{ url: 'https://user:pw@a.example/' }, at('.url'), 'must not contain credentials'],
      [{ url: `https://a.example/${'x'.repeat(2048)}` }, at('.url'), 'must be at most 2048 characters'],
      [{ url: 5 }, at('.url'), 'must be an absolute http(s) URL'],
      [{ url: 'https://a.example', fallback: 'https://b.example' }, at('.fallback'), 'only a deep_link action has a fallback'],
      [{ store: 'itms-apps://apps.apple.com/app/id1' }, at('.store'), 'must be an absolute http(s) URL'],
      [{ deep_link: 'javascript:alert(1)' }, at('.deep_link'), 'must not use the javascript: scheme'],
      [{ deep_link: 'DATA:text/html,x' }, at('.deep_link'), 'must not use the data: scheme'],
      [{ deep_link: 'vbscript:x' }, at('.deep_link'), 'must not use the vbscript: scheme'],
      [{ deep_link: 'file:///etc/passwd' }, at('.deep_link'), 'must not use the file: scheme'],
      [{ deep_link: 'product/42' }, at('.deep_link'), 'must be a URL with a scheme, such as myapp://product/42'],
      [{ deep_link: 'myapp://a b' }, at('.deep_link'), 'must not contain blanks, control characters or backslashes'],
      [{ deep_link: `myapp://${'x'.repeat(2041)}` }, at('.deep_link'), 'must be at most 2048 characters'],
      [{ deep_link: 'https://user@app.example/' }, at('.deep_link'), 'must not contain credentials'],
      [{ deep_link: 42 }, at('.deep_link'), 'must be a URL with a scheme, such as myapp://product/42'],
      [{ deep_link: 'myapp://x', fallback: 'myapp://y' }, at('.fallback'), 'must be an absolute http(s) URL'],
      [{ variants: [] }, at('.variants'), 'must be an array of 1 to 10 variants {url, weight}'],
      [{ variants: Array.from({ length: 11 }, () => ({ url: 'https://a.example', weight: 1 })) }, at('.variants'), 'must be an array of 1 to 10 variants {url, weight}'],
      [{ variants: [{ url: 'https://a.example', weight: 0 }] }, at('.variants.0.weight'), 'must be an integer from 1 to 1000000'],
      [{ variants: [{ url: 'https://a.example', weight: 1 }, { url: 'https://b.example', weight: 2.5 }] }, at('.variants.1.weight'), 'must be an integer from 1 to 1000000'],
      [{ variants: [{ url: 'https://a.example' }] }, at('.variants.0.weight'), 'is required'],
      [{ variants: [{ url: 'ftp://a.example', weight: 1 }] }, at('.variants.0.url'), 'must be an absolute http(s) URL'],
      [{ variants: [{ url: 'https://a.example', weight: 1, name: 'A' }] }, at('.variants.0.name'), 'unknown field'],
      [{ variants: ['https://a.example'] }, at('.variants.0'), 'must be an object {url, weight}'],
      [{ block: 500 }, at('.block'), 'must be 403, 404 or 410'],
      [{ block: '403' }, at('.block'), 'must be 403, 404 or 410'],
    ];
    for (const [action, path, message] of cases) expect(ruleErrors({ if: {}, then: action })).toEqual({ [path]: [message] });
  });

  test('every error of a rule set comes at once; the path prefix is the caller\'s', () => {
    expect(errors([{ if: { country: 'XX', os: 'bsd' }, then: { block: 500 } }], 'body.rules')).toEqual({
      'body.rules.rules.0.if.country': ['"XX" is not an ISO 3166-1 alpha-2 country code such as US or DE'],
      'body.rules.rules.0.if.os': ['"bsd" is not one of ios, android, desktop'],
      'body.rules.rules.0.then.block': ['must be 403, 404 or 410'],
    });
  });

  test('a rule set larger than the byte limit as JSON is refused on the whole', () => {
    const rule = (i: number) => ({ if: { city: Array.from({ length: 300 }, (_, j) => `City ${i}-${j}`) }, then: { block: 404 } });
    const large = Array.from({ length: 100 }, (_, i) => rule(i));
    expect(JSON.stringify(large).length).toBeGreaterThan(MAX_RULES_BYTES);
    expect(errors(large)).toEqual({ rules: [`must be at most ${MAX_RULES_BYTES} bytes as JSON`] });
  });
});

/** Mutations that each make exactly one path invalid in a valid rule set with at least one rule. */
const mutations: { name: string; apply: (set: { rules: Record<string, unknown>[] } & Record<string, unknown>, i: number) => string }[] = [
  ...(
    [
      ['country', 'XX'],
      ['country', []],
      ['region', ''],
      ['city', 5],
      ['os', 'windows'],
      ['ip_type', 'cable'],
      ['language', 'en-US'],
      ['in_app', 'yes'],
      ['params', {}],
      ['hours', { from: 1, to: 24 }, 'hours.to'],
      ['hours', { from: 1, to: 2, tz: 'Moon/Base' }, 'hours.tz'],
      ['weekdays', ['mon', 'funday']],
      ['device', 'phone'],
    ] as [string, unknown, string?][]
  ).map(([key, value, at = key]) => ({
    name: `if.${key} = ${JSON.stringify(value)}`,
    apply: (set: { rules: Record<string, unknown>[] }, i: number) => {
      set.rules[i]!.if = { ...(set.rules[i]!.if as object), [key]: value };
      return `rules.rules.${i}.if.${at}`;
    },
  })),
  ...(
    [
      [{ url: 'javascript:alert(1)' }, '.url'],
      [{ store: 'market://details?id=x' }, '.store'],
      [{ deep_link: 'vbscript:x' }, '.deep_link'],
      [{ deep_link: 'myapp://x', fallback: 'x' }, '.fallback'],
      [{ variants: [{ url: 'https://a.example', weight: 0 }] }, '.variants.0.weight'],
      [{ block: 302 }, '.block'],
      [{ url: 'https://a.example', store: 'https://b.example' }, ''],
      [{}, ''],
    ] as [unknown, string][]
  ).map(([then, suffix]) => ({
    name: `then = ${JSON.stringify(then)}`,
    apply: (set: { rules: Record<string, unknown>[] }, i: number) => {
      set.rules[i]!.then = then;
      return `rules.rules.${i}.then${suffix}`;
    },
  })),
  { name: 'rule name too long', apply: (set, i) => ((set.rules[i]!.name = 'n'.repeat(65)), `rules.rules.${i}.name`) },
  { name: 'unknown rule key', apply: (set, i) => ((set.rules[i]!.when = {}), `rules.rules.${i}.when`) },
  { name: 'rule not an object', apply: (set, i) => ((set.rules[i] = [] as never), `rules.rules.${i}`) },
  {
    name: 'a repeated name',
    apply: (set, i) => {
      set.rules[i]!.name = 'twice';
      set.rules.push({ name: 'twice', if: {}, then: { block: 404 } });
      for (const [j, rule] of set.rules.entries()) if (j !== i && j !== set.rules.length - 1 && rule.name === 'twice') delete rule.name;
      return `rules.rules.${set.rules.length - 1}.name`;
    },
  },
  { name: 'version 2', apply: (set) => ((set.version = 2), 'rules.version') },
  { name: 'a bad fallback', apply: (set) => ((set.fallback = { url: 'data:text/html,x' }), 'rules.fallback.url') },
  { name: 'an unknown top-level key', apply: (set) => ((set.default = 'x'), 'rules.default') },
];

describe('parseRules: properties', () => {
  test('property: every valid rule set, in any accepted spelling, is accepted and normalised to its canonical form', () => {
    fc.assert(
      fc.property(
        ruleSetArb.chain((set) => fc.tuple(fc.constant(set), denormalised(set))),
        ([set, input]) => {
          const parsed = ok(input);
          expect(parsed).toEqual(set);
          expect(Value.Check(RuleSetSchema, parsed)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  test('property: normalising is idempotent', () => {
    fc.assert(
      fc.property(
        ruleSetArb.chain(denormalised),
        (input) => {
          const once = ok(input);
          expect(ok(JSON.parse(JSON.stringify(once)))).toEqual(once);
        },
      ),
      { numRuns: 1000 },
    );
  });

  test('property: any single mutation into an invalid value is refused, naming exactly its path', () => {
    fc.assert(
      fc.property(
        ruleSetArb.filter((set) => set.rules.length > 0),
        fc.nat(),
        fc.constantFrom(...mutations),
        (set, pick, mutation) => {
          const copy = structuredClone(set) as unknown as Parameters<(typeof mutations)[number]['apply']>[0];
          const path = mutation.apply(copy, pick % set.rules.length);
          const parsed = parseRules(copy);
          expect(parsed.ok).toBe(false);
          if (!parsed.ok) expect(Object.keys(parsed.fieldErrors)).toEqual([path]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('property: whatever the input, the parser answers a rule set or errors under rules, never throws', () => {
    const json = fc.jsonValue({ maxDepth: 5 });
    const nearlyValid = fc.oneof(json, fc.array(fc.record({ if: json, then: json }, { requiredKeys: [] })), fc.record({ version: fc.constant(1), rules: fc.array(json) }));
    fc.assert(
      fc.property(nearlyValid, (input) => {
        const parsed = parseRules(input);
        if (parsed.ok) expect(Value.Check(RuleSetSchema, parsed.value)).toBe(true);
        else for (const path of Object.keys(parsed.fieldErrors)) expect(path === 'rules' || path.startsWith('rules.')).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
