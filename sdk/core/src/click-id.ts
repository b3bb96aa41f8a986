import type { Store } from './storage';
import { urlParam } from './url-params';

/** The first-party click id the `/c` redirect adds to the landing URL (docs/tracking.md). */
export const CLICK_ID_PARAM = 'svc_click_id';
/** The spec's web stored click id lifetime. */
export const CLICK_ID_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** What the server takes as a click id; anything else is not one of ours. */
const CLICK_ID_PATTERN = /^[A-Za-z0-9_-]{4,64}$/;
const GCLID_PATTERN = /^[\x21-\x7e]{1,256}$/;

export interface StoredClick {
  id: string;
  /** Google's click id when the landing URL had one: the install's GCLID tier uses it. */
  gclid?: string;
  /** When the landing page was loaded, in ms since the epoch. */
  at: number;
}

/** The click id `href` carries, or null when it has none or not a valid one. */
export function clickIdFromUrl(href: string): string | null {
  const id = urlParam(href, CLICK_ID_PARAM);
  return id !== null && CLICK_ID_PATTERN.test(id) ? id : null;
}

/**
 * Keeps the click of a landing URL for 7 days from the first time it was seen (a reload of
 * the landing URL does not extend it); another click replaces it.
 */
export function rememberClick(store: Store, href: string, now: number): StoredClick | undefined {
  const id = clickIdFromUrl(href);
  if (id === null) return undefined;
  const kept = keptClick(store, now);
  if (kept && kept.id === id) return kept;
  const gclid = urlParam(href, 'gclid');
  const click: StoredClick = gclid !== null && GCLID_PATTERN.test(gclid) ? { id, gclid, at: now } : { id, at: now };
  store.set('click', click);
  return click;
}

/** The kept click while it is younger than 7 days; an older one is forgotten. */
export function keptClick(store: Store, now: number): StoredClick | undefined {
  const click = store.get<StoredClick>('click');
  if (!click || typeof click.id !== 'string' || typeof click.at !== 'number') return undefined;
  if (now - click.at >= CLICK_ID_LIFETIME_MS || now < click.at - CLICK_ID_LIFETIME_MS) {
    store.remove('click');
    return undefined;
  }
  return click;
}
