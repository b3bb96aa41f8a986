/**
 * A rule set compiled once, when its link enters the cache, into closures over Sets: evaluating
 * a request does no I/O and allocates nothing (every decision is made at compile time).
 * Semantics: docs/smart-links.md, "Evaluation".
 */
import { type FactNeeds, type RouteFacts, visitorDraw, zonedHourAndWeekday } from './facts';
import { type Conditions, DEFAULT_TIME_ZONE, type Rule, type RuleAction, type RuleSet } from './rules.model';

export interface RouteDecision {
  readonly ruleIndex: number | null;
  readonly ruleName: string | null;
  /** null: no rule matched; the caller uses `set.fallback`, else the link's destination, else 404. */
  readonly action: RuleAction | null;
  /** The chosen entry of a `variants` action, else null. */
  readonly variantIndex: number | null;
}

export interface CompiledRules {
  readonly set: RuleSet;
  /** The facts some rule reads: requestFacts computes only these. */
  readonly needs: FactNeeds;
  evaluate(facts: RouteFacts): RouteDecision;
}

type Check = (facts: RouteFacts) => boolean;

const NO_MATCH: RouteDecision = Object.freeze({ ruleIndex: null, ruleName: null, action: null, variantIndex: null });

export function compileRules(set: RuleSet): CompiledRules {
  const compiled = set.rules.map((rule, index) => ({ matches: compileConditions(rule.if), decide: compileDecision(rule, index) }));
  return {
    set,
    needs: factNeeds(set),
    evaluate(facts) {
      for (let i = 0; i < compiled.length; i++) if (compiled[i]!.matches(facts)) return compiled[i]!.decide(facts);
      return NO_MATCH;
    },
  };
}

export function factNeeds(set: RuleSet): FactNeeds {
  const needs: FactNeeds = { geo: false, place: false, ipType: false, os: false, inApp: false, language: false, params: false, time: false, variants: false };
  const paramNames = new Set<string>();
  for (const { if: when, then } of set.rules) {
    for (const name of Object.keys(when.params ?? {})) paramNames.add(name);
    needs.geo ||= when.country !== undefined;
    needs.place ||= when.region !== undefined || when.city !== undefined;
    needs.ipType ||= when.ip_type !== undefined;
    needs.os ||= when.os !== undefined;
    needs.inApp ||= when.in_app !== undefined;
    needs.language ||= when.language !== undefined;
    needs.params ||= when.params !== undefined;
    needs.time ||= when.hours !== undefined || when.weekdays !== undefined;
    needs.variants ||= 'variants' in then;
  }
  if (needs.params) needs.paramNames = [...paramNames];
  return needs;
}

/** The decision of a rule, made now; a `variants` rule picks among decisions made now. */
function compileDecision(rule: Rule, ruleIndex: number): (facts: RouteFacts) => RouteDecision {
  const ruleName = rule.name ?? null;
  const action = rule.then;
  if (!('variants' in action)) {
    const decision: RouteDecision = Object.freeze({ ruleIndex, ruleName, action, variantIndex: null });
    return () => decision;
  }
  const decisions = action.variants.map((_, variantIndex) => Object.freeze({ ruleIndex, ruleName, action, variantIndex }));
  const bounds: number[] = [];
  let total = 0;
  for (const variant of action.variants) bounds.push((total += variant.weight));
  // visitorHash % total is uniform over the total weight: variant i takes bounds[i - 1] .. bounds[i] - 1.
  return (facts) => {
    const draw = visitorDraw(facts) % total;
    let index = 0;
    while (draw >= bounds[index]!) index++;
    return decisions[index]!;
  };
}

function compileConditions(when: Conditions): Check {
  const checks: Check[] = [];
  if (when.country) checks.push(valueIn('country', when.country));
  if (when.region) checks.push(nameIn('region', when.region));
  if (when.city) checks.push(nameIn('city', when.city));
  if (when.os) checks.push(valueIn('os', when.os));
  if (when.ip_type) checks.push(valueIn('ipType', when.ip_type));
  if (when.in_app !== undefined) {
    const inApp = when.in_app;
    checks.push((facts) => facts.inApp === inApp);
  }
  if (when.language) {
    const languages = new Set(when.language);
    checks.push((facts) => facts.languages.length > 0 && languages.has(facts.languages[0]!));
  }
  if (when.params) checks.push(paramsCheck(when.params));
  if (when.hours || when.weekdays) checks.push(timeCheck(when));
  if (checks.length === 0) return () => true;
  if (checks.length === 1) return checks[0]!;
  return (facts) => {
    for (let i = 0; i < checks.length; i++) if (!checks[i]!(facts)) return false;
    return true;
  };
}

function valueIn(fact: 'country' | 'os' | 'ipType', values: readonly string[]): Check {
  const set = new Set(values);
  return (facts) => {
    const value = facts[fact];
    return value !== null && set.has(value);
  };
}

/** Region and city names compare case-insensitively; the last lower-cased fact is remembered. */
function nameIn(fact: 'region' | 'city', names: readonly string[]): Check {
  const set = new Set(names.map((name) => name.toLowerCase()));
  let last: string | null = null;
  let lastLower = '';
  return (facts) => {
    const value = facts[fact];
    if (value === null) return false;
    if (value !== last) {
      last = value;
      lastLower = value.toLowerCase();
    }
    return set.has(lastLower);
  };
}

/** Every named parameter present with one of its values; `*` accepts any value. */
function paramsCheck(params: Record<string, string[]>): Check {
  const wanted = Object.entries(params).map(([name, values]) => ({ name, any: values.includes('*'), values: new Set(values) }));
  return (facts) => {
    for (let i = 0; i < wanted.length; i++) {
      const { name, any, values } = wanted[i]!;
      const value = facts.params.get(name);
      if (value === undefined || !(any || values.has(value))) return false;
    }
    return true;
  };
}

/**
 * `hours` from..to in its zone, `to` exclusive, wrapping midnight when from > to, every hour
 * when from == to; `weekdays` in the same zone (UTC without `hours`).
 */
function timeCheck(when: Conditions): Check {
  const tz = when.hours?.tz ?? DEFAULT_TIME_ZONE;
  const hours = when.hours ? hourSet(when.hours.from, when.hours.to) : null;
  const weekdays = when.weekdays ? new Set<string>(when.weekdays) : null;
  return (facts) => {
    const { hour, weekday } = zonedHourAndWeekday(tz, facts.nowMs);
    return (hours === null || hours[hour] === true) && (weekdays === null || weekdays.has(weekday));
  };
}

function hourSet(from: number, to: number): readonly boolean[] {
  return Array.from({ length: 24 }, (_, hour) => (from === to ? true : from < to ? hour >= from && hour < to : hour >= from || hour < to));
}
