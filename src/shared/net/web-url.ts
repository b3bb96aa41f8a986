/**
 * The one rule for a URL the service may send a visitor to, whoever gave it: a link's
 * destination, an app's store URL, or the landing URL of a click once decoded
 * (src/tracking/redirect/landing-url.ts). Rules and reasons: docs/http-rules.md, "Input limits".
 */
import type { Parsed } from '../timestamp';

// Blanks (Unicode ones included) and C0 and C1 control characters are never part of a URL as
// typed. A backslash is read as a slash by browsers in http(s) URLs, so
// `https://evil.example\@shop.example` would go somewhere other than what it appears to name.
export const UNSAFE_URL_CHARS = /[\s\u0000-\u001f\u007f-\u009f\\]/;
// Scheme, '//' and a first authority character: `http:host` and `http:///x` are not hosts.
const HTTP_PREFIX = /^https?:\/\/[^/?#]/i;
const AUTHORITY_END = /[/?#]/;

export type WebUrlCheck = { url: URL } | { error: string };

/**
 * An absolute http(s) URL with a host, no credentials (`https://shop.example@evil.example/`
 * goes to evil.example), no blanks, control characters or backslashes. The caller keeps the
 * text; the parsed URL is returned for its host.
 */
export function checkWebUrl(raw: string): WebUrlCheck {
  const error = 'must be an absolute http(s) URL';
  if (UNSAFE_URL_CHARS.test(raw)) return { error: 'must not contain blanks, control characters or backslashes' };
  if (!HTTP_PREFIX.test(raw)) return { error };
  const start = raw.indexOf('//') + 2;
  const end = raw.slice(start).search(AUTHORITY_END);
  if (raw.slice(start, end < 0 ? raw.length : start + end).includes('@')) return { error: 'must not contain credentials' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error };
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return { error };
  return { url };
}

/** The host a URL names, as allowed-host lists compare it: lower case, punycode, no trailing dot. */
export function comparableHost(url: URL): string {
  const host = url.hostname;
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** The longest URL a link, an app or a rule may store. */
export const MAX_URL_LENGTH = 2048;

/** A URL to store: checkWebUrl's rule, at most MAX_URL_LENGTH characters, kept as given. */
export function parseHttpUrl(raw: string): Parsed<string> {
  if (raw.length > MAX_URL_LENGTH) return { error: `must be at most ${MAX_URL_LENGTH} characters` };
  const checked = checkWebUrl(raw);
  return 'error' in checked ? checked : { value: raw };
}
