import { clickIdFromUrl } from './click-id';
import { isAbsoluteUrl, percentDecode, urlParam } from './url-params';

/** The in-app path a tracking link's deep link carries (docs/tracking.md, "Deep links"). */
export const DEEP_LINK_PATH_PARAM = 'deep_link_path';
const MAX_PATH = 512;

/** What a deep link that opened the app says: our click id and the screen to open, each or null. */
export interface DeepLink {
  url: string;
  clickId: string | null;
  deepLinkPath: string | null;
}

/**
 * The `deep_link_path` of `href`. Links built by hand often encode the path twice
 * (`%252Fproduct%252F42`): a value that still starts with an encoded slash after one decoding
 * is decoded once more. Only a path is taken, by the rule links are created with
 * (docs/tracking.md): no scheme, no leading `//`, at most 512 characters.
 */
export function deepLinkPathFromUrl(href: string): string | null {
  let path = urlParam(href, DEEP_LINK_PATH_PARAM);
  if (path === null) return null;
  if (/^%2f/i.test(path)) path = percentDecode(path);
  const isPath = path.length > 0 && path.length <= MAX_PATH && !isAbsoluteUrl(path) && !path.startsWith('//');
  return isPath ? path : null;
}

/** Parses a deep link (the app's initial URL or a later `url` event); never throws. */
export function parseDeepLink(href: string): DeepLink {
  return { url: href, clickId: clickIdFromUrl(href), deepLinkPath: deepLinkPathFromUrl(href) };
}


