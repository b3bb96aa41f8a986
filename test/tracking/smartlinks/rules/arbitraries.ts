import fc from 'fast-check';
import type { RouteFacts } from '../../../../src/tracking/smartlinks/rules/facts';
import { type Conditions, IP_TYPES, OPERATING_SYSTEMS, type Rule, type RuleAction, type RuleSet, WEEKDAYS } from '../../../../src/tracking/smartlinks/rules/rules.model';

/** Small pools, so random rules and random requests meet often. */
export const POOLS = {
  countries: ['US', 'DE', 'FR', 'CA', 'GB'],
  regions: ['Bavaria', 'California', 'Île-de-France'],
  cities: ['Berlin', 'München', 'Paris', 'São Paulo'],
  languages: ['en', 'de', 'fr', 'pt', 'fil'],
  paramNames: ['utm_source', 'ref', 'gclid'],
  paramValues: ['news', 'ads', 'Mail', ''],
  // Half-hour, quarter-hour and half-hour-DST zones besides whole-hour ones.
  zones: ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'America/St_Johns'],
  urls: ['https://shop.example.com/', 'https://a.example/x?y=1', 'http://b.example:8080/p'],
};

const list = <T>(values: readonly T[]) => fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: values.length });
const hour = fc.integer({ min: 0, max: 23 });

const conditionArbs = {
  country: list(POOLS.countries),
  region: list(POOLS.regions),
  city: list(POOLS.cities),
  os: list(OPERATING_SYSTEMS),
  ip_type: list(IP_TYPES),
  language: list(POOLS.languages),
  in_app: fc.boolean(),
  params: fc
    .uniqueArray(fc.constantFrom(...POOLS.paramNames), { minLength: 1, maxLength: 2 })
    .chain((names) => fc.tuple(...names.map((name) => fc.tuple(fc.constant(name), list([...POOLS.paramValues, '*'])))))
    .map((entries) => Object.fromEntries(entries)),
  hours: fc.record({ from: hour, to: hour, tz: fc.constantFrom(...POOLS.zones) }),
  weekdays: list(WEEKDAYS),
};

/** Up to three conditions per rule (more would almost never match a random request). */
export const conditionsArb: fc.Arbitrary<Conditions> = fc
  .subarray(Object.keys(conditionArbs) as (keyof typeof conditionArbs)[], { maxLength: 3 })
  .chain((keys) => fc.record(Object.fromEntries(keys.map((key) => [key, conditionArbs[key]]))) as fc.Arbitrary<Conditions>);

const url = fc.constantFrom(...POOLS.urls);
export const actionArb: fc.Arbitrary<RuleAction> = fc.oneof(
  fc.record({ url }),
  fc.record({ store: fc.constantFrom('https://apps.apple.com/app/id123', 'https://play.google.com/store/apps/details?id=com.example') }),
  fc.record({ deep_link: fc.constantFrom('myapp://product/42', 'https://app.example/open'), fallback: url }, { requiredKeys: ['deep_link'] }),
  fc.record({ variants: fc.array(fc.record({ url, weight: fc.integer({ min: 1, max: 100 }) }), { minLength: 1, maxLength: 10 }) }),
  fc.record({ block: fc.constantFrom(403 as const, 404 as const, 410 as const) }),
);

/** A valid rule set in its normalised form; rule names unique when present. */
export const ruleSetArb: fc.Arbitrary<RuleSet> = fc
  .tuple(
    fc.array(fc.tuple(fc.option(fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme-ascii' }), { nil: undefined }), conditionsArb, actionArb), {
      maxLength: 8,
    }),
    fc.option(fc.record({ url }), { nil: undefined }),
  )
  .map(([entries, fallback]) => {
    const seen = new Set<string>();
    const rules = entries.map(([name, when, then]): Rule => {
      const unique = name !== undefined && !/[\u0000-\u001f\u007f]/.test(name) && !seen.has(name) ? name : undefined;
      if (unique !== undefined) seen.add(unique);
      return unique === undefined ? { if: when, then } : { name: unique, if: when, then };
    });
    return fallback ? { version: 1 as const, rules, fallback } : { version: 1 as const, rules };
  });

const anyCase = (value: string) => fc.constantFrom(value, value.toUpperCase(), value.toLowerCase());
const oneOrList = (values: string[], vary: (value: string) => fc.Arbitrary<string>) =>
  fc.tuple(...values.map(vary)).chain((varied) => (varied.length === 1 ? fc.constantFrom<string | string[]>(varied[0]!, varied) : fc.constant(varied)));

/** An input that parseRules must normalise to `set`: single values, any case, default zone, the bare array. */
export function denormalised(set: RuleSet): fc.Arbitrary<unknown> {
  const rules = set.rules.map((rule) => {
    const when = rule.if;
    const fields: Record<string, fc.Arbitrary<unknown>> = {};
    const codes = (key: 'country' | 'os' | 'ip_type' | 'language' | 'weekdays') => {
      if (when[key]) fields[key] = oneOrList(when[key] as string[], anyCase);
    };
    (['country', 'os', 'ip_type', 'language', 'weekdays'] as const).forEach(codes);
    if (when.region) fields.region = oneOrList(when.region, fc.constant);
    if (when.city) fields.city = oneOrList(when.city, fc.constant);
    if (when.in_app !== undefined) fields.in_app = fc.constant(when.in_app);
    if (when.params) {
      const params = when.params;
      fields.params = fc.record(Object.fromEntries(Object.entries(params).map(([name, values]) => [name, oneOrList(values, fc.constant)])));
    }
    if (when.hours) {
      const { from, to, tz } = when.hours;
      fields.hours = tz === 'UTC' ? fc.constantFrom({ from, to }, { from, to, tz }, { from, to, tz: 'utc' }) : fc.constantFrom({ from, to, tz }, { from, to, tz: tz.toLowerCase() });
    }
    return fc.record(fields).map((conditions) => ({ ...rule, if: conditions }));
  });
  return fc.tuple(fc.tuple(...rules), fc.boolean()).map(([inputs, bare]) => (bare && !set.fallback ? inputs : { ...set, rules: inputs }));
}

export const factsArb: fc.Arbitrary<RouteFacts> = fc.record({
  country: fc.option(fc.constantFrom(...POOLS.countries, 'JP'), { nil: null }),
  region: fc.option(fc.constantFrom(...POOLS.regions, 'Texas').chain(anyCase), { nil: null }),
  city: fc.option(fc.constantFrom(...POOLS.cities, 'Lyon').chain(anyCase), { nil: null }),
  os: fc.option(fc.constantFrom(...OPERATING_SYSTEMS), { nil: null }),
  ipType: fc.option(fc.constantFrom(...IP_TYPES), { nil: null }),
  inApp: fc.boolean(),
  languages: fc.uniqueArray(fc.constantFrom(...POOLS.languages, 'ja'), { maxLength: 3 }),
  params: fc
    .array(fc.tuple(fc.constantFrom(...POOLS.paramNames, 'other'), fc.constantFrom(...POOLS.paramValues, 'x')), { maxLength: 4 })
    .map((entries) => new Map(entries.toReversed())),
  // 2000 to 2100: DST transitions of every generated zone included.
  nowMs: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
  visitorHash: fc.integer({ min: 0, max: 0xffffffff }),
});
