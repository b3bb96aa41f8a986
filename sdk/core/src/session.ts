import type { Store } from './storage';

/** The spec's session inactivity: `session_start` is logged after 30 minutes without activity. */
export const SESSION_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * Records activity (a page load, a logged event, the page shown again) at `now`. True when it
 * starts a session: the first activity ever, or the first after 30 minutes without any.
 */
export function touchSession(store: Store, now: number): boolean {
  const last = store.get<number>('activity');
  store.set('activity', now);
  return typeof last !== 'number' || now - last >= SESSION_TIMEOUT_MS || now < last;
}
