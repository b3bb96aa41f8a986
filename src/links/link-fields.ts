/**
 * Parsers for the link fields whose rules TypeBox cannot express. Each returns the stored
 * form of a value, or `{ error }` with the message that goes into `fieldErrors`.
 */
import type { Parsed } from '../shared/timestamp';

export type { Parsed };

export const MAX_DEEP_LINK_PATH_LENGTH = 512;

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
