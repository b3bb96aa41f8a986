/**
 * The landing URL of a click redirect: read from the query string, validated by the rule of
 * link destinations (src/shared/net/web-url.ts) and given its click id. Ad platforms encode it once,
 * twice or three times, so the raw value is decoded one layer at a time until it is an absolute
 * URL, never further: encoded text inside it (`?q=a%20b`, `?next=%2Fcart`) is kept.
 */
import { checkWebUrl, comparableHost } from '../../shared/net/web-url';
import { setBounded } from '../../shared/cache';
import { formDecode } from '../query-string';
import { CLICK_ID_PARAM } from '../tracking.model';

/** The spec allows up to three layers of encoding. */
export const MAX_DECODE_DEPTH = 3;

/** Longer Location headers are refused by common proxies and browsers. */
export const MAX_LANDING_URL_LENGTH = 8192;

/** `host` is the URL's host as allowed-host lists compare it (comparableHost). */
export type LandingUrl = { ok: true; url: string; host: string } | { ok: false; reason: string };

/** RFC 3986 scheme followed by ':'. An encoded colon (%3A) never matches, which is the point. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * `raw` is the parameter value exactly as it appears in the request's query string (not decoded).
 * '+' is never turned into a space (in a landing URL's query it already means one), and blanks
 * are not trimmed: a destination may not hold them, so neither may a landing URL.
 */
export function resolveLandingUrl(raw: string): LandingUrl {
  let value = raw;
  for (let depth = 0; !SCHEME.test(value); depth++) {
    if (depth === MAX_DECODE_DEPTH) return { ok: false, reason: 'must be an absolute http(s) URL' };
    let decoded: string;
    try {
      decoded = decodeURIComponent(value);
    } catch {
      return { ok: false, reason: 'is not validly percent-encoded' };
    }
    if (decoded === value) return { ok: false, reason: 'must be an absolute http(s) URL' };
    value = decoded;
  }
  return checkHttpUrl(value);
}

/** Ads send the same landing URLs over and over: resolved values are remembered (bounded, emptied when full). */
const resolvedCache = new Map<string, LandingUrl>();
const RESOLVED_CACHE_LIMIT = 5000;
const RESOLVED_CACHE_KEY_LENGTH = 2048;

export function resolveLandingUrlCached(raw: string): LandingUrl {
  const cached = resolvedCache.get(raw);
  if (cached) return cached;
  const resolved = resolveLandingUrl(raw);
  if (raw.length <= RESOLVED_CACHE_KEY_LENGTH) {
    setBounded(resolvedCache, RESOLVED_CACHE_LIMIT, raw, resolved);
  }
  return resolved;
}

/**
 * Accepts what a link destination may be (src/shared/net/web-url.ts); what may then still not appear
 * in a header is non-ASCII text, percent-encoded as UTF-8. Every other byte is kept as given.
 */
export function checkHttpUrl(candidate: string): LandingUrl {
  const tooLong = { ok: false, reason: `must be at most ${MAX_LANDING_URL_LENGTH} characters` } as const;
  if (candidate.length > MAX_LANDING_URL_LENGTH) return tooLong;
  const checked = checkWebUrl(candidate);
  if ('error' in checked) return { ok: false, reason: checked.error };
  const url = encodeUnsafeChars(candidate);
  if (url.length > MAX_LANDING_URL_LENGTH) return tooLong;
  return { ok: true, url, host: comparableHost(checked.url) };
}

/** Percent-encodes, as UTF-8, every character a header may not hold as is (controls, blanks, non-ASCII). */
export function encodeUnsafeChars(value: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0x20 && code < 0x7f) continue;
    out += value.slice(start, i);
    // A surrogate pair is one code point: encode both halves together.
    const next = value.charCodeAt(i + 1);
    const pairEnd = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? i + 2 : i + 1;
    const chunk = value.slice(i, pairEnd);
    out += chunk.isWellFormed() ? encodeURIComponent(chunk) : '%EF%BF%BD';
    i = pairEnd - 1;
    start = pairEnd;
  }
  return start === 0 ? value : out + value.slice(start);
}

/**
 * Adds `svc_click_id=<id>` to the landing URL exactly once: earlier `svc_click_id` pieces are
 * removed, every other piece of the query is kept byte for byte and in order, the new pair goes
 * last in the query, and a `#fragment` stays at the end of the URL.
 */
export function withClickId(url: string, clickId: string): string {
  let slot = slotCache.get(url);
  if (!slot) {
    slot = clickIdSlot(url);
    if (url.length <= RESOLVED_CACHE_KEY_LENGTH) {
      setBounded(slotCache, RESOLVED_CACHE_LIMIT, url, slot);
    }
  }
  return slot.head + (URI_COMPONENT_SAFE.test(clickId) ? clickId : encodeURIComponent(clickId)) + slot.tail;
}

/** The landing URL around its click id: everything up to `svc_click_id=`, and the fragment after it. */
interface ClickIdSlot {
  head: string;
  tail: string;
}

/** A landing URL gets the same slot on every click: slots are remembered like resolved URLs. */
const slotCache = new Map<string, ClickIdSlot>();

/** Characters encodeURIComponent leaves as they are (a ULID is made of them only). */
const URI_COMPONENT_SAFE = /^[A-Za-z0-9_.!~*'()-]*$/;

function clickIdSlot(url: string): ClickIdSlot {
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt < 0 ? url : url.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : url.slice(hashAt);
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt < 0 ? '' : beforeHash.slice(queryAt + 1);
  const kept = query === '' ? '' : query.split('&').filter((piece) => !isClickIdPiece(piece)).join('&');
  return { head: `${base}?${kept}${kept === '' ? '' : '&'}${CLICK_ID_PARAM}=`, tail: fragment };
}

function isClickIdPiece(piece: string): boolean {
  const eq = piece.indexOf('=');
  return formDecode(eq < 0 ? piece : piece.slice(0, eq)) === CLICK_ID_PARAM;
}
