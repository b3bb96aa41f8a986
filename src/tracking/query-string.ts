/**
 * A query string as tracking reads it: names form-decoded, the first occurrence of a name wins,
 * values kept raw (the landing URL is decoded layer by layer, a captured value once).
 */
import { storable } from './tracking.model';

/**
 * Which of `names` the query text query[at, end) spells exactly, as an index into `names`, or
 * -1. Matched where it stands, without being cut out: for a name with neither `%` nor `+`, which
 * needs no decoding (the callers check), and most of a query's names match none.
 */
export function nameAt(names: readonly string[], query: string, at: number, end: number): number {
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name.length === end - at && query.startsWith(name, at)) return i;
  }
  return -1;
}

/** One layer of application/x-www-form-urlencoded decoding; a malformed escape keeps the raw text. */
export function formDecode(raw: string): string {
  if (raw.indexOf('%') < 0 && raw.indexOf('+') < 0) return raw;
  const spaced = raw.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * The query string of a request URL as (decoded name -> raw value) pairs; the first occurrence
 * of a name wins. Values stay raw so the landing URL can be decoded layer by layer.
 */
export function rawQuery(requestUrl: string): Map<string, string> {
  return parseQuery(queryOf(requestUrl));
}

/** The query string of a request URL: what follows '?', up to a '#' ('' when there is none). */
export function queryOf(requestUrl: string): string {
  const start = requestUrl.indexOf('?');
  if (start < 0) return '';
  const hashAt = requestUrl.indexOf('#', start);
  return requestUrl.slice(start + 1, hashAt < 0 ? requestUrl.length : hashAt);
}

/** A query string (what follows '?', without a fragment) as rawQuery reads it. */
export function parseQuery(query: string): Map<string, string> {
  const params = new Map<string, string>();
  // Walked in place rather than split('&').
  for (let at = 0; at <= query.length; ) {
    let next = query.indexOf('&', at);
    if (next < 0) next = query.length;
    if (next > at) {
      const eq = query.indexOf('=', at);
      const hasValue = eq >= 0 && eq < next;
      const name = formDecode(query.slice(at, hasValue ? eq : next));
      if (!params.has(name)) params.set(name, hasValue ? query.slice(eq + 1, next) : '');
    }
    at = next + 1;
  }
  return params;
}

/** A query value, form-decoded once, as it is stored. */
export const decodedText = (raw: string) => storable(formDecode(raw));
