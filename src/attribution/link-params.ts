/**
 * Click ids and gclids hidden in the strings an app receives: the Android install referrer and
 * the deep link that opened the app. Both arrive in many shapes (bare query, a store URL whose
 * `referrer` parameter holds the query, encoded once, twice or three times, custom schemes,
 * universal links wrapping a deep link), so the search is breadth-first over every nested
 * query it can find, and the shallowest valid value wins.
 */

export const CLICK_ID_PARAM = 'svc_click_id';

/** The spec's click_id length (4 to 64); ids are URL-safe, so anything else is not one of ours. */
export const CLICK_ID_PATTERN = /^[A-Za-z0-9_-]{4,64}$/;
const GCLID_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/** Nested strings examined per input: bounds the work an adversarial referrer can cause. */
const MAX_CANDIDATES = 64;
const MAX_DEPTH = 6;
const MAX_INPUT = 8192;

/** Percent-decoding that never throws: a malformed sequence stays as written. */
export function decodeLenient(value: string): string {
  const spaced = value.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/** The query-like parts of a string: after '?' (up to '#'), the fragment, or the whole string. */
function queryParts(text: string): string[] {
  const hash = text.indexOf('#');
  const beforeHash = hash < 0 ? text : text.slice(0, hash);
  const fragment = hash < 0 ? '' : text.slice(hash + 1);
  const question = beforeHash.indexOf('?');
  const parts = [question < 0 ? beforeHash : beforeHash.slice(question + 1)];
  if (fragment) parts.push(fragment);
  return parts;
}

function pairsOf(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const part of queryParts(text)) {
    for (const piece of part.split(/[&;]/)) {
      if (!piece) continue;
      const eq = piece.indexOf('=');
      if (eq < 0) continue;
      pairs.push([decodeLenient(piece.slice(0, eq)).trim().toLowerCase(), piece.slice(eq + 1)]);
    }
  }
  return pairs;
}

/** A value may itself still be encoded (double-encoded referrers): decode until it validates or stops changing. */
function validValue(raw: string, pattern: RegExp): string | undefined {
  let value = raw;
  for (let i = 0; i < 4; i += 1) {
    const decoded = decodeLenient(value).trim();
    if (pattern.test(decoded)) return decoded;
    if (decoded === value) return undefined;
    value = decoded;
  }
  return undefined;
}

/**
 * The first valid value of each wanted parameter, searching `raw` and every query nested in it
 * (parameter values that look like queries or URLs, and the whole string decoded once more).
 */
export function findParams(raw: string, wanted: Record<string, RegExp>): Record<string, string> {
  const found: Record<string, string> = {};
  const names = Object.keys(wanted);
  const queue: { text: string; depth: number }[] = [{ text: raw.slice(0, MAX_INPUT).trim(), depth: 0 }];
  const seen = new Set<string>();
  for (let index = 0; index < queue.length && index < MAX_CANDIDATES; index += 1) {
    const { text, depth } = queue[index]!;
    if (seen.has(text)) continue;
    seen.add(text);
    const nested: string[] = [];
    for (const [key, value] of pairsOf(text)) {
      const pattern = wanted[key];
      if (pattern && found[key] === undefined) {
        const valid = validValue(value, pattern);
        if (valid !== undefined) found[key] = valid;
      }
      const decoded = decodeLenient(value);
      if (/[=?]/.test(decoded)) nested.push(decoded);
    }
    if (names.every((name) => found[name] !== undefined)) break;
    if (depth >= MAX_DEPTH) continue;
    for (const text of nested) queue.push({ text, depth: depth + 1 });
    if (/%[0-9A-Fa-f]{2}|\+/.test(text)) queue.push({ text: decodeLenient(text), depth: depth + 1 });
  }
  return found;
}

export interface ReferrerSignals {
  clickId: string | null;
  gclid: string | null;
}

/** The Android install referrer: `svc_click_id` put there by our store redirect, and a Google Ads gclid. */
export function parseInstallReferrer(referrer: string | null | undefined): ReferrerSignals {
  if (!referrer) return { clickId: null, gclid: null };
  const found = findParams(referrer, { [CLICK_ID_PARAM]: CLICK_ID_PATTERN, gclid: GCLID_PATTERN });
  return { clickId: found[CLICK_ID_PARAM] ?? null, gclid: found.gclid ?? null };
}

/** `svc_click_id` from the deep link that opened the app (custom scheme, universal link, nested link). */
export function clickIdFromUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  return findParams(url, { [CLICK_ID_PARAM]: CLICK_ID_PATTERN })[CLICK_ID_PARAM] ?? null;
}
