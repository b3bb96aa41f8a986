/**
 * The one reader of smart-link rule sets (links API, route test, MCP): checks a rule set of
 * version 1 and returns its normalised form, or every error under its exact path such as
 * `rules.rules.2.if.country`. Reference: docs/smart-links.md, "Rule schema (version 1)".
 */
import { Type as T } from '@sinclair/typebox';
import { parseHttpUrl } from '../../../shared/net/web-url';
import { checkWebUrl, UNSAFE_URL_CHARS } from '../../../shared/net/web-url';
import { CONTROL_CHARS, checkShape, FieldErrors, isPlainObject, quote } from './field-errors';
import { readConditions } from './parse-conditions';
import {
  BLOCK_STATUSES,
  type BlockStatus,
  MAX_DEEP_LINK_LENGTH,
  MAX_RULE_NAME_LENGTH,
  MAX_RULES,
  MAX_VARIANT_WEIGHT,
  MAX_VARIANTS,
  type Rule,
  type RuleAction,
  type RuleSet,
  RULES_VERSION,
} from './rules.model';

export type ParseRulesResult = { ok: true; value: RuleSet } | { ok: false; fieldErrors: Record<string, string[]> };

/** The normalised rule set as JSON: bounds what the link caches and the edge workers hold. */
export const MAX_RULES_BYTES = 262_144;

const URL_ERROR = 'must be an absolute http(s) URL';
const ACTIONS = ['url', 'store', 'deep_link', 'variants', 'block'] as const;
const ACTION_LIST = 'url, store, deep_link, variants or block';
/** Stands in for an action that failed to parse; the result is an error then, never stored. */
const NO_ACTION: RuleAction = Object.freeze({ block: 404 });
/** Schemes a deep link may not use: each runs or reads something in the browser itself. */
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file']);

const RuleSetShape = T.Object(
  {
    version: T.Literal(RULES_VERSION, { error: `must be ${RULES_VERSION}` }),
    rules: T.Array(T.Unknown(), { maxItems: MAX_RULES, error: `must be an array of at most ${MAX_RULES} rules` }),
    fallback: T.Optional(T.Object({ url: T.String({ error: URL_ERROR }) }, { additionalProperties: false, error: 'must be an object {url}' })),
  },
  { additionalProperties: false, error: 'must be an array of rules or an object {version: 1, rules: [...], fallback: {url}}' },
);

const RuleShape = T.Object(
  {
    name: T.Optional(T.String({ minLength: 1, maxLength: MAX_RULE_NAME_LENGTH, error: `must be 1 to ${MAX_RULE_NAME_LENGTH} characters` })),
    if: T.Unknown(),
    then: T.Unknown(),
  },
  { additionalProperties: false, error: 'must be an object {name, if, then}' },
);

const VariantShape = T.Object(
  {
    url: T.String({ error: URL_ERROR }),
    weight: T.Integer({ minimum: 1, maximum: MAX_VARIANT_WEIGHT, error: `must be an integer from 1 to ${MAX_VARIANT_WEIGHT}` }),
  },
  { additionalProperties: false, error: 'must be an object {url, weight}' },
);

/**
 * A bare array is shorthand for `{version: 1, rules: [...]}`; its errors are still named
 * `rules.rules.N...`, the path in the stored form.
 */
export function parseRules(input: unknown, path = 'rules'): ParseRulesResult {
  const errors = new FieldErrors();
  const raw = Array.isArray(input) ? { version: RULES_VERSION, rules: input } : input;
  const set = readRuleSet(raw, path, errors);
  if (!errors.any && Buffer.byteLength(JSON.stringify(set), 'utf8') > MAX_RULES_BYTES) {
    errors.add(path, `must be at most ${MAX_RULES_BYTES} bytes as JSON`);
  }
  return errors.any ? { ok: false, fieldErrors: errors.fields } : { ok: true, value: set };
}

function readRuleSet(raw: unknown, path: string, errors: FieldErrors): RuleSet {
  const set: RuleSet = { version: RULES_VERSION, rules: [] };
  checkShape(RuleSetShape, raw, path, errors);
  if (!isPlainObject(raw)) return set;
  if (Array.isArray(raw.rules) && raw.rules.length <= MAX_RULES) {
    const names = new Map<string, number>();
    set.rules = raw.rules.map((rule, index) => readRule(rule, `${path}.rules.${index}`, errors, names, index));
  }
  if (isPlainObject(raw.fallback) && typeof raw.fallback.url === 'string') {
    set.fallback = { url: readUrl(raw.fallback.url, `${path}.fallback.url`, errors) };
  }
  return set;
}

function readRule(raw: unknown, path: string, errors: FieldErrors, names: Map<string, number>, index: number): Rule {
  const shaped = checkShape(RuleShape, raw, path, errors);
  if (!isPlainObject(raw)) return { if: {}, then: NO_ACTION };
  const rule: Rule = {
    if: raw.if === undefined ? {} : readConditions(raw.if, `${path}.if`, errors),
    then: raw.then === undefined ? NO_ACTION : readAction(raw.then, `${path}.then`, errors),
  };
  if (!shaped || typeof raw.name !== 'string') return rule;
  const name = raw.name;
  const first = names.get(name);
  if (CONTROL_CHARS.test(name)) errors.add(`${path}.name`, 'must not contain control characters');
  else if (first !== undefined) errors.add(`${path}.name`, `must be unique: rule ${first} has the same name`);
  else names.set(name, index);
  return { name, ...rule };
}

function readAction(raw: unknown, path: string, errors: FieldErrors): RuleAction {
  if (!isPlainObject(raw)) {
    errors.add(path, `must be an object with one action: ${ACTION_LIST}`);
    return NO_ACTION;
  }
  const keys = Object.keys(raw);
  const named = ACTIONS.filter((action) => Object.hasOwn(raw, action));
  for (const key of keys) {
    const known = (ACTIONS as readonly string[]).includes(key) || (key === 'fallback' && named.length === 1 && named[0] === 'deep_link');
    if (key === 'fallback' && !known) errors.add(`${path}.fallback`, 'only a deep_link action has a fallback');
    else if (!known) errors.add(`${path}.${key}`, 'unknown field');
  }
  if (named.length !== 1) {
    errors.add(path, named.length === 0 ? `must name one action: ${ACTION_LIST}` : `must name exactly one action, not ${named.join(' and ')}`);
    return NO_ACTION;
  }
  const at = `${path}.${named[0]}`;
  switch (named[0]) {
    case 'url':
      return { url: readUrl(raw.url, at, errors) };
    case 'store':
      return { store: readUrl(raw.store, at, errors) };
    case 'deep_link': {
      const action: { deep_link: string; fallback?: string } = { deep_link: readDeepLink(raw.deep_link, at, errors) };
      if (raw.fallback !== undefined) action.fallback = readUrl(raw.fallback, `${path}.fallback`, errors);
      return action;
    }
    case 'variants':
      return { variants: readVariants(raw.variants, at, errors) };
    default:
      if (!(BLOCK_STATUSES as readonly unknown[]).includes(raw.block)) errors.add(at, 'must be 403, 404 or 410');
      return { block: raw.block as BlockStatus };
  }
}

function readUrl(raw: unknown, path: string, errors: FieldErrors): string {
  if (typeof raw !== 'string') {
    errors.add(path, URL_ERROR);
    return '';
  }
  const parsed = parseHttpUrl(raw);
  if ('error' in parsed) errors.add(path, parsed.error);
  return raw;
}

/**
 * A URL that opens an app: any scheme but those that run or read something in the browser
 * (javascript:, data:, vbscript:, file:), custom ones (`myapp://product/42`) included; an
 * http(s) one (a universal or app link) follows the rules of every web URL.
 */
function readDeepLink(raw: unknown, path: string, errors: FieldErrors): string {
  const fail = (message: string) => (errors.add(path, message), '');
  if (typeof raw !== 'string') return fail('must be a URL with a scheme, such as myapp://product/42');
  if (raw.length > MAX_DEEP_LINK_LENGTH) return fail(`must be at most ${MAX_DEEP_LINK_LENGTH} characters`);
  if (UNSAFE_URL_CHARS.test(raw)) return fail('must not contain blanks, control characters or backslashes');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined || !URL.canParse(raw)) return fail('must be a URL with a scheme, such as myapp://product/42');
  if (FORBIDDEN_SCHEMES.has(scheme)) return fail(`must not use the ${scheme}: scheme`);
  if (scheme === 'http' || scheme === 'https') {
    const web = checkWebUrl(raw);
    if ('error' in web) return fail(web.error);
  }
  return raw;
}

function readVariants(raw: unknown, path: string, errors: FieldErrors): { url: string; weight: number }[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_VARIANTS) {
    errors.add(path, `must be an array of 1 to ${MAX_VARIANTS} variants {url, weight}`);
    return [];
  }
  return raw.map((variant, index) => {
    const at = `${path}.${index}`;
    const shaped = checkShape(VariantShape, variant, at, errors);
    const url = isPlainObject(variant) && typeof variant.url === 'string' ? readUrl(variant.url, `${at}.url`, errors) : '';
    return { url, weight: shaped ? (variant as typeof VariantShape.static).weight : 1 };
  });
}
