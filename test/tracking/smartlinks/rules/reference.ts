import { type RouteFacts, visitorHash } from '../../../../src/tracking/smartlinks/rules/facts';
import type { Conditions, RuleAction, RuleSet } from '../../../../src/tracking/smartlinks/rules/rules.model';

/**
 * The rule semantics of docs/smart-links.md written as plainly as possible, over the raw rule
 * set, with the zone's time read from Intl on every call: what compileRules must agree with.
 */
export function referenceEvaluate(set: RuleSet, facts: RouteFacts) {
  for (let index = 0; index < set.rules.length; index++) {
    const rule = set.rules[index]!;
    if (holds(rule.if, facts)) {
      return { ruleIndex: index, ruleName: rule.name ?? null, action: rule.then as RuleAction | null, variantIndex: pickVariant(rule.then, facts) };
    }
  }
  return { ruleIndex: null, ruleName: null, action: null, variantIndex: null };
}

function pickVariant(action: RuleAction, facts: RouteFacts): number | null {
  if (!('variants' in action)) return null;
  const total = action.variants.reduce((sum, variant) => sum + variant.weight, 0);
  // Facts from requestFacts leave the hash to be worked out from the visitor's key.
  const visitor = facts.visitor;
  const hash = facts.visitorHash ?? (visitor ? visitorHash(visitor.linkId, visitor.ip, visitor.userAgent) : 0);
  let draw = hash % total;
  for (let index = 0; index < action.variants.length; index++) {
    if (draw < action.variants[index]!.weight) return index;
    draw -= action.variants[index]!.weight;
  }
  throw new Error('unreachable');
}

function holds(when: Conditions, facts: RouteFacts): boolean {
  if (when.country && !(facts.country !== null && when.country.includes(facts.country))) return false;
  if (when.region && !sameName(when.region, facts.region)) return false;
  if (when.city && !sameName(when.city, facts.city)) return false;
  if (when.os && !(facts.os !== null && when.os.includes(facts.os))) return false;
  if (when.ip_type && !(facts.ipType !== null && when.ip_type.includes(facts.ipType))) return false;
  if (when.in_app !== undefined && when.in_app !== facts.inApp) return false;
  if (when.language && !(facts.languages.length > 0 && when.language.includes(facts.languages[0]!))) return false;
  if (when.params) {
    for (const [name, values] of Object.entries(when.params)) {
      const value = facts.params.get(name);
      if (value === undefined) return false;
      if (!values.includes('*') && !values.includes(value)) return false;
    }
  }
  if (when.hours || when.weekdays) {
    const { hour, weekday } = wallClock(when.hours?.tz ?? 'UTC', facts.nowMs);
    if (when.hours && !inHours(hour, when.hours.from, when.hours.to)) return false;
    if (when.weekdays && !(when.weekdays as string[]).includes(weekday)) return false;
  }
  return true;
}

function sameName(names: string[], value: string | null): boolean {
  return value !== null && names.some((name) => name.toLowerCase() === value.toLowerCase());
}

export function inHours(hour: number, from: number, to: number): boolean {
  if (from === to) return true;
  if (from < to) return hour >= from && hour < to;
  return hour >= from || hour < to;
}

/** The hour (0 to 23) and weekday (`mon` ...) on a wall clock in `tz`, straight from Intl. */
export function wallClock(tz: string, nowMs: number): { hour: number; weekday: string } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hour: 'numeric', hourCycle: 'h23', weekday: 'short' }).formatToParts(nowMs);
  const hour = Number(parts.find((part) => part.type === 'hour')!.value);
  const weekday = parts.find((part) => part.type === 'weekday')!.value.toLowerCase();
  return { hour, weekday };
}
