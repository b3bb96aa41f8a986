import { getDomain } from 'tldts';

/**
 * The field rules of the Attribution Reporting API's registration headers, as its header
 * validator (github.com/WICG/attribution-reporting-api, ts/src/header-validator/validate-*.ts)
 * checks them, written out here independently of the emitter. Stricter than the browser in one
 * way: a field the API does not know is an error, since this service means to send none.
 * Returns the problems found, as "path: message"; none means valid.
 */

const UINT = /^[0-9]+$/;
const INT = /^-?[0-9]+$/;
const HEX128 = /^0[xX][0-9A-Fa-f]{1,32}$/;
const UINT64_MAX = 2n ** 64n - 1n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DAY = 86_400;
const BUDGET = 65_536;

type Problems = string[];

const isObject = (j: unknown): j is Record<string, unknown> => typeof j === 'object' && j !== null && !Array.isArray(j);

function uint64(j: unknown, path: string, out: Problems): bigint | undefined {
  if (typeof j !== 'string') return void out.push(`${path}: must be a string`);
  if (!UINT.test(j)) return void out.push(`${path}: string must represent a non-negative integer`);
  const n = BigInt(j);
  if (n > UINT64_MAX) return void out.push(`${path}: must fit in an unsigned 64-bit integer`);
  return n;
}

function int64(j: unknown, path: string, out: Problems): void {
  if (typeof j !== 'string') return void out.push(`${path}: must be a string`);
  if (!INT.test(j)) return void out.push(`${path}: string must represent an integer`);
  const n = BigInt(j);
  if (n < INT64_MIN || n > INT64_MAX) out.push(`${path}: must fit in a signed 64-bit integer`);
}

function hex128(j: unknown, path: string, out: Problems): void {
  if (typeof j !== 'string' || !HEX128.test(j)) out.push(`${path}: must be a hex128`);
}

function unknownFields(d: Record<string, unknown>, known: string[], path: string, out: Problems): void {
  for (const key of Object.keys(d)) if (!known.includes(key)) out.push(`${path}${key}: unknown field`);
}

/** A site: https (or http on localhost / 127.0.0.1), nothing but scheme and registrable domain. */
function site(j: unknown, path: string, out: Problems): string | undefined {
  if (typeof j !== 'string') return void out.push(`${path}: must be a string`);
  let url: URL;
  try {
    url = new URL(j);
  } catch {
    return void out.push(`${path}: invalid URL`);
  }
  const trustworthy = url.protocol === 'https:' || (url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1'));
  if (!trustworthy) return void out.push(`${path}: URL must use HTTP/HTTPS and be potentially trustworthy`);
  const ip = url.hostname.startsWith('[') || /^[0-9.]+$/.test(url.hostname);
  const registrable = ip ? url.hostname : getDomain(url.hostname, { allowPrivateDomains: true }) ?? url.hostname;
  const expected = `${url.protocol}//${registrable}`;
  if (j !== expected) out.push(`${path}: ${j} is not a site (expected ${expected}); the rest would be ignored`);
  return j;
}

export function validateSourceHeader(text: string): Problems {
  const out: Problems = [];
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return ['invalid JSON'];
  }
  if (!isObject(j)) return ['must be an object'];
  unknownFields(j, ['source_event_id', 'destination', 'expiry', 'priority', 'filter_data', 'aggregation_keys', 'debug_key', 'event_report_window', 'aggregatable_report_window'], '', out);
  if (j.source_event_id !== undefined) uint64(j.source_event_id, 'source_event_id', out);
  if (j.destination === undefined) out.push('destination: required');
  else if (Array.isArray(j.destination)) {
    if (j.destination.length < 1 || j.destination.length > 3) out.push('destination: must have 1 to 3 sites');
    const sites = j.destination.map((d, i) => site(d, `destination.${i}`, out));
    if (new Set(sites).size !== sites.length) out.push('destination: sites must be distinct');
  } else site(j.destination, 'destination', out);
  if (j.expiry !== undefined) {
    const seconds = typeof j.expiry === 'number' ? (Number.isInteger(j.expiry) && j.expiry >= 0 ? BigInt(j.expiry) : undefined) : uint64(j.expiry, 'expiry', out);
    if (seconds === undefined && typeof j.expiry === 'number') out.push('expiry: must be a non-negative integer');
    // The browser clamps; a header that relies on clamping says something it does not mean.
    if (seconds !== undefined && (seconds < BigInt(DAY) || seconds > BigInt(30 * DAY))) out.push(`expiry: ${seconds} is outside [${DAY}, ${30 * DAY}] and would be clamped`);
  }
  if (j.priority !== undefined) int64(j.priority, 'priority', out);
  if (j.filter_data !== undefined) {
    if (!isObject(j.filter_data)) out.push('filter_data: must be an object');
    else {
      const entries = Object.entries(j.filter_data);
      if (entries.length > 50) out.push('filter_data: exceeds the maximum number of keys (50)');
      for (const [key, values] of entries) {
        const at = `filter_data.${key}`;
        if (key === 'source_type' || key === '_lookback_window') out.push(`${at}: is prohibited because it is implicitly set`);
        else if (key.startsWith('_')) out.push(`${at}: is prohibited as keys starting with "_" are reserved`);
        if (key.length > 25) out.push(`${at}: key exceeds max length per filter string (25)`);
        if (!Array.isArray(values)) {
          out.push(`${at}: must be a list`);
          continue;
        }
        if (values.length > 50) out.push(`${at}: more than 50 values`);
        for (const value of values) {
          if (typeof value !== 'string') out.push(`${at}: values must be strings`);
          else if (value.length > 25) out.push(`${at}: value exceeds max length per filter string (25)`);
        }
        if (new Set(values).size !== values.length) out.push(`${at}: duplicate value`);
      }
    }
  }
  if (j.aggregation_keys !== undefined) {
    if (!isObject(j.aggregation_keys)) out.push('aggregation_keys: must be an object');
    else {
      const entries = Object.entries(j.aggregation_keys);
      if (entries.length > 20) out.push('aggregation_keys: exceeds the maximum number of keys (20)');
      for (const [key, piece] of entries) {
        if (key.length > 25) out.push(`aggregation_keys.${key}: key exceeds max length per aggregation key identifier (25)`);
        hex128(piece, `aggregation_keys.${key}`, out);
      }
    }
  }
  return out;
}

function filters(j: unknown, path: string, out: Problems): void {
  const configs = Array.isArray(j) ? j : [j];
  for (const config of configs) {
    if (!isObject(config)) {
      out.push(`${path}: must be an object or a list of objects`);
      continue;
    }
    for (const [key, values] of Object.entries(config)) {
      if (key === '_lookback_window') continue;
      if (key.startsWith('_')) out.push(`${path}.${key}: reserved`);
      if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) out.push(`${path}.${key}: must be a list of strings`);
    }
  }
}

export function validateTriggerHeader(text: string): Problems {
  const out: Problems = [];
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return ['invalid JSON'];
  }
  if (!isObject(j)) return ['must be an object'];
  unknownFields(j, ['event_trigger_data', 'aggregatable_trigger_data', 'aggregatable_values', 'filters', 'not_filters', 'debug_key'], '', out);
  if (j.event_trigger_data !== undefined) {
    if (!Array.isArray(j.event_trigger_data)) out.push('event_trigger_data: must be a list');
    else
      j.event_trigger_data.forEach((datum, i) => {
        const at = `event_trigger_data.${i}`;
        if (!isObject(datum)) return void out.push(`${at}: must be an object`);
        unknownFields(datum, ['trigger_data', 'priority', 'deduplication_key', 'filters', 'not_filters'], `${at}.`, out);
        if (datum.trigger_data !== undefined) uint64(datum.trigger_data, `${at}.trigger_data`, out);
        if (datum.deduplication_key !== undefined) uint64(datum.deduplication_key, `${at}.deduplication_key`, out);
        if (datum.priority !== undefined) int64(datum.priority, `${at}.priority`, out);
        if (datum.filters !== undefined) filters(datum.filters, `${at}.filters`, out);
        if (datum.not_filters !== undefined) filters(datum.not_filters, `${at}.not_filters`, out);
      });
  }
  if (j.aggregatable_trigger_data !== undefined) {
    if (!Array.isArray(j.aggregatable_trigger_data)) out.push('aggregatable_trigger_data: must be a list');
    else
      j.aggregatable_trigger_data.forEach((datum, i) => {
        const at = `aggregatable_trigger_data.${i}`;
        if (!isObject(datum)) return void out.push(`${at}: must be an object`);
        unknownFields(datum, ['key_piece', 'source_keys', 'filters', 'not_filters'], `${at}.`, out);
        if (datum.key_piece === undefined) out.push(`${at}.key_piece: required`);
        else hex128(datum.key_piece, `${at}.key_piece`, out);
        if (datum.source_keys !== undefined) {
          const keys = datum.source_keys;
          if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) out.push(`${at}.source_keys: must be a list of strings`);
          else if (new Set(keys).size !== keys.length) out.push(`${at}.source_keys: must be distinct`);
        }
      });
  }
  if (j.aggregatable_values !== undefined) {
    if (!isObject(j.aggregatable_values)) out.push('aggregatable_values: must be an object');
    else {
      let sum = 0;
      for (const [key, value] of Object.entries(j.aggregatable_values)) {
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > BUDGET) out.push(`aggregatable_values.${key}: must be an integer in [1, ${BUDGET}]`);
        else sum += value;
      }
      if (sum > BUDGET) out.push(`aggregatable_values: the values sum to ${sum}, over the budget of ${BUDGET}`);
    }
  }
  return out;
}
