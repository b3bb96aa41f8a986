/**
 * The `if` of a rule: each condition checked and normalised (a single value becomes a list,
 * codes take their canonical case). A bad entry of a list is reported on the condition, the
 * message quoting the entry. Reference: docs/smart-links.md, "Conditions".
 */
import { Type as T } from '@sinclair/typebox';
import { COUNTRY_CODES } from './countries';
import { CONTROL_CHARS, checkShape, FieldErrors, isPlainObject, quote } from './field-errors';
import { type Conditions, DEFAULT_TIME_ZONE, IP_TYPES, OPERATING_SYSTEMS, WEEKDAYS } from './rules.model';
import { canonicalTimeZone } from './zoned-time';

export const CONDITION_NAMES = ['country', 'region', 'city', 'os', 'ip_type', 'language', 'in_app', 'params', 'hours', 'weekdays'] as const;
export const MAX_LIST_VALUES = 300;
export const MAX_PLACE_LENGTH = 100;
export const MAX_PARAMS = 20;
export const MAX_PARAM_NAME_LENGTH = 64;
export const MAX_PARAM_VALUE_LENGTH = 256;

const HOUR_ERROR = 'must be an integer from 0 to 23';
const HoursInput = T.Object(
  {
    from: T.Integer({ minimum: 0, maximum: 23, error: HOUR_ERROR }),
    to: T.Integer({ minimum: 0, maximum: 23, error: HOUR_ERROR }),
    tz: T.Optional(T.String({ error: 'must be an IANA time zone such as Europe/Berlin or UTC' })),
  },
  { additionalProperties: false, error: 'must be an object {from, to, tz}' },
);

type Normalise = (entry: string) => string | { error: string };

const oneOf =
  (values: readonly string[]): Normalise =>
  (entry) => {
    const lower = entry.toLowerCase();
    return values.includes(lower) ? lower : { error: `${quote(entry)} is not one of ${values.join(', ')}` };
  };

const country: Normalise = (entry) => {
  const upper = entry.toUpperCase();
  return COUNTRY_CODES.has(upper) ? upper : { error: `${quote(entry)} is not an ISO 3166-1 alpha-2 country code such as US or DE` };
};

const place: Normalise = (entry) => {
  if (entry.length === 0 || entry.length > MAX_PLACE_LENGTH) return { error: `names must be 1 to ${MAX_PLACE_LENGTH} characters` };
  return CONTROL_CHARS.test(entry) ? { error: `${quote(entry)} contains control characters` } : entry;
};

const language: Normalise = (entry) =>
  /^[A-Za-z]{2,3}$/.test(entry)
    ? entry.toLowerCase()
    : { error: `${quote(entry)} is not a primary language subtag such as en or fil (regions such as en-US are not compared)` };

const paramValue: Normalise = (entry) =>
  entry.length > MAX_PARAM_VALUE_LENGTH ? { error: `values must be at most ${MAX_PARAM_VALUE_LENGTH} characters` } : entry;

/** One value or an array of them, each normalised; repeats dropped, order kept. */
function readList(raw: unknown, path: string, errors: FieldErrors, normalise: Normalise): string[] | undefined {
  const entries = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(entries)) {
    errors.add(path, 'must be a string or an array of strings');
    return undefined;
  }
  if (entries.length === 0) errors.add(path, 'must not be empty');
  if (entries.length > MAX_LIST_VALUES) errors.add(path, `must have at most ${MAX_LIST_VALUES} values`);
  const values = new Set<string>();
  entries.forEach((entry, index) => {
    if (typeof entry !== 'string') return errors.add(path, `entry ${index} must be a string`);
    const normalised = normalise(entry);
    if (typeof normalised === 'string') values.add(normalised);
    else errors.add(path, normalised.error);
  });
  return [...values];
}

function readParams(raw: unknown, path: string, errors: FieldErrors): Record<string, string[]> | undefined {
  if (!isPlainObject(raw)) {
    errors.add(path, 'must be an object of parameter names, each with a value or a list of values ("*" matches any value)');
    return undefined;
  }
  const names = Object.keys(raw);
  if (names.length === 0) errors.add(path, 'must name at least one parameter');
  if (names.length > MAX_PARAMS) errors.add(path, `must name at most ${MAX_PARAMS} parameters`);
  const params: Record<string, string[]> = {};
  for (const name of names) {
    if (name.length > MAX_PARAM_NAME_LENGTH) errors.add(path, `parameter names must be 1 to ${MAX_PARAM_NAME_LENGTH} characters: ${quote(name)}`);
    else if (name.length === 0) errors.add(path, `parameter names must be 1 to ${MAX_PARAM_NAME_LENGTH} characters`);
    const values = readList(raw[name], `${path}.${name}`, errors, paramValue);
    // defineProperty: a parameter named __proto__ is an own key, not the object's prototype.
    if (values) Object.defineProperty(params, name, { value: values, enumerable: true, writable: true, configurable: true });
  }
  return params;
}

function readHours(raw: unknown, path: string, errors: FieldErrors): Conditions['hours'] {
  const shaped = checkShape(HoursInput, raw, path, errors);
  const given = isPlainObject(raw) ? raw.tz : undefined;
  const tz = canonicalTimeZone(typeof given === 'string' ? given : DEFAULT_TIME_ZONE);
  if (typeof given === 'string' && tz === null) errors.add(`${path}.tz`, 'must be an IANA time zone such as Europe/Berlin or UTC');
  if (!shaped || tz === null) return undefined;
  const { from, to } = raw as typeof HoursInput.static;
  return { from, to, tz };
}

const conditionNames: readonly string[] = CONDITION_NAMES;

export function readConditions(raw: unknown, path: string, errors: FieldErrors): Conditions {
  const conditions: Conditions = {};
  if (!isPlainObject(raw)) {
    errors.add(path, 'must be an object of conditions ({} matches every request)');
    return conditions;
  }
  for (const [name, value] of Object.entries(raw)) {
    const at = `${path}.${name}`;
    if (!conditionNames.includes(name)) errors.add(at, `unknown condition: use ${CONDITION_NAMES.join(', ')}`);
    else if (name === 'in_app') {
      if (typeof value === 'boolean') conditions.in_app = value;
      else errors.add(at, 'must be true or false');
    } else if (name === 'params') conditions.params = readParams(value, at, errors);
    else if (name === 'hours') conditions.hours = readHours(value, at, errors);
    else if (name === 'country') conditions.country = readList(value, at, errors, country);
    else if (name === 'region' || name === 'city') conditions[name] = readList(value, at, errors, place);
    else if (name === 'os') conditions.os = readList(value, at, errors, oneOf(OPERATING_SYSTEMS)) as Conditions['os'];
    else if (name === 'ip_type') conditions.ip_type = readList(value, at, errors, oneOf(IP_TYPES)) as Conditions['ip_type'];
    else if (name === 'language') conditions.language = readList(value, at, errors, language);
    else if (name === 'weekdays') conditions.weekdays = readList(value, at, errors, oneOf(WEEKDAYS)) as Conditions['weekdays'];
  }
  return conditions;
}
