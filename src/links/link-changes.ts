import type { Db } from '../db/db';

const CHANNEL = 'svc_link_changed';

/**
 * A subscriber to link changes. One that returns a promise (the relay to this node's tracking
 * listener threads, src/tracking/listeners.ts) holds publish() until it settles.
 */
export type LinkChangeSubscriber = (linkId: string) => void | Promise<void>;

/**
 * Tells every node that a link changed: local subscribers (every thread of this node) finish
 * before publish() resolves; other nodes hear it through Postgres NOTIFY. The payload is the link id.
 */
export interface LinkChanges {
  publish(linkId: string): Promise<void>;
  subscribe(onChange: LinkChangeSubscriber): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * This thread's subscribers to link changes: deliver() runs each and settles once those that
 * returned a promise have. Used on the main thread and in each tracking listener thread.
 */
export function linkChangeSubscribers(): Pick<LinkChanges, 'subscribe'> & { deliver(linkId: string): Promise<void> } {
  const subscribers = new Set<LinkChangeSubscriber>();
  return {
    subscribe(onChange) {
      subscribers.add(onChange);
      return () => subscribers.delete(onChange);
    },
    async deliver(linkId) {
      const waits: Promise<void>[] = [];
      for (const subscriber of subscribers) {
        const done = subscriber(linkId);
        if (done) waits.push(done);
      }
      if (waits.length > 0) await Promise.all(waits);
    },
  };
}

export function createLinkChanges(db: Db): LinkChanges {
  const { subscribe, deliver } = linkChangeSubscribers();
  const deliverHeard = (linkId: string) => {
    deliver(linkId).catch((error) => console.error('link changes: a subscriber failed', error));
  };
  let unlisten: (() => Promise<void>) | undefined;
  return {
    async publish(linkId) {
      await deliver(linkId);
      await db.notify(CHANNEL, linkId);
    },
    subscribe,
    async start() {
      unlisten ??= await db.listen(CHANNEL, deliverHeard);
    },
    async stop() {
      await unlisten?.();
      unlisten = undefined;
    },
  };
}
