/**
 * Parsers for the link fields whose rules TypeBox cannot express. Each returns the stored
 * form of a value, or `{ error }` with the message that goes into `fieldErrors`.
 */
import type { Parsed } from '../shared/timestamp';
import { checkWebUrl } from '../shared/web-url';

export type { Parsed };

export const MAX_URL_LENGTH = 2048;
export const MAX_DEEP_LINK_PATH_LENGTH = 512;

/**
 * An absolute http(s) URL with a host, by the rule every URL a visitor may be sent to follows
 * (src/shared/web-url.ts), at most MAX_URL_LENGTH characters. The value is stored as given.
 */
export function parseHttpUrl(raw: string): Parsed<string> {
  if (raw.length > MAX_URL_LENGTH) return { error: `must be at most ${MAX_URL_LENGTH} characters` };
  const checked = checkWebUrl(raw);
  return 'error' in checked ? checked : { value: raw };
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
// At least two labels, and the last one starts with a letter: a public hostname, not an IP literal.
const HOSTNAME = new RegExp(`^(?:${LABEL}\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`);

/**
 * A hostname with an optional port, lower-cased: the value a request's Host header is compared
 * with. No scheme, path, credentials or IP literal; non-ASCII names in punycode, as browsers send.
 */
export function parseDomain(raw: string): Parsed<string> {
  const error = 'must be a hostname with an optional port, such as go.example.com or go.example.com:8443';
  const lower = raw.toLowerCase();
  const match = /^([^:]+)(?::([0-9]{1,5}))?$/.exec(lower);
  if (!match) return { error };
  const [, host = '', port] = match;
  if (host.length > 253 || !HOSTNAME.test(host)) return { error };
  if (port !== undefined) {
    const number = Number(port);
    if (number < 1 || number > 65535 || port.startsWith('0')) return { error };
  }
  return { value: lower };
}

// RFC 3986 path, query and fragment characters; anything else must be percent-encoded.
const DEEP_LINK_CHARS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})+$/;

/**
 * The in-app route a deferred or direct deep link opens, such as `/product/42` or
 * `product/42?ref=mail`. A full URL or a scheme (`myapp://...`, `javascript:`) is not a path,
 * and `//host/...` would be read as a host by anything that resolves it against a URL.
 */
export function parseDeepLinkPath(raw: string): Parsed<string> {
  if (raw.length === 0 || raw.length > MAX_DEEP_LINK_PATH_LENGTH) return { error: `must be 1 to ${MAX_DEEP_LINK_PATH_LENGTH} characters` };
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(raw)) return { error: 'must be a path, not a URL with a scheme' };
  if (raw.startsWith('//')) return { error: 'must not start with //' };
  if (!DEEP_LINK_CHARS.test(raw)) return { error: 'must contain only URL path characters (percent-encode the rest)' };
  return { value: raw };
}
