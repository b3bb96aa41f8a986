import { changeSubscribers, createChangeChannel, type ChangeChannel, type ChangeSubscriber } from '../../../db/change-channel';
import type { Db } from '../../../db/db';

const CHANNEL = 'svc_link_changed';

/**
 * A subscriber to link changes: `change` is a link id, or names every link bound to a domain
 * (domainChange). One that returns a promise (the relay to this node's tracking listener
 * threads, src/tracking/listeners/listeners.ts) holds publish() until it settles.
 */
export type LinkChangeSubscriber = ChangeSubscriber;

const DOMAIN_PREFIX = 'domain:';

/** The change of every link bound to `domain` (its verification); link ids never hold a colon. */
export function domainChange(domain: string): string {
  return `${DOMAIN_PREFIX}${domain}`;
}

/** The domain a change names, or undefined for the change of one link. */
export function changedDomain(change: string): string | undefined {
  return change.startsWith(DOMAIN_PREFIX) ? change.slice(DOMAIN_PREFIX.length) : undefined;
}

/**
 * Tells every node that a link changed: local subscribers (every thread of this node) finish
 * before publish() resolves; other nodes hear it through Postgres NOTIFY. The payload is the
 * link id, or a domainChange().
 */
export type LinkChanges = ChangeChannel;

/** This thread's subscribers to link changes, on the main thread and in each tracking listener thread. */
export const linkChangeSubscribers = changeSubscribers;

/**
 * Publishes after a committed write: redirect caches drop what changed at once on this node and on
 * the others through NOTIFY. A failed notification is logged, not turned into an error.
 */
export async function announce(linkChanges: Pick<LinkChanges, 'publish'>, change: string): Promise<void> {
  try {
    await linkChanges.publish(change);
  } catch (error) {
    console.error('link change notification failed', change, error);
  }
}

export function createLinkChanges(db: Db): LinkChanges {
  return createChangeChannel(db, CHANNEL);
}
