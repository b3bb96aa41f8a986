import type { Db } from './db';

/**
 * A subscriber to changes on a channel. One that returns a promise (the relay to this node's
 * tracking listener threads, say) holds publish() until it settles.
 */
export type ChangeSubscriber = (change: string) => void | Promise<void>;

/**
 * Tells every node that something changed: local subscribers (every thread of this node) finish
 * before publish() resolves; other nodes hear it through Postgres NOTIFY on the channel.
 */
export interface ChangeChannel {
  publish(change: string): Promise<void>;
  subscribe(onChange: ChangeSubscriber): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * This thread's subscribers to a channel: deliver() runs each and settles once those that
 * returned a promise have.
 */
export function changeSubscribers(): Pick<ChangeChannel, 'subscribe'> & { deliver(change: string): Promise<void> } {
  const subscribers = new Set<ChangeSubscriber>();
  return {
    subscribe(onChange) {
      subscribers.add(onChange);
      return () => subscribers.delete(onChange);
    },
    async deliver(change) {
      const waits: Promise<void>[] = [];
      for (const subscriber of subscribers) {
        const done = subscriber(change);
        if (done) waits.push(done);
      }
      if (waits.length > 0) await Promise.all(waits);
    },
  };
}

/** Changes published on this node reach its subscribers at once, other nodes' once start() listens. */
export function createChangeChannel(db: Db, channel: string): ChangeChannel {
  const { subscribe, deliver } = changeSubscribers();
  const deliverHeard = (change: string) => {
    deliver(change).catch((error) => console.error(`${channel}: a subscriber failed`, error));
  };
  let unlisten: (() => Promise<void>) | undefined;
  return {
    async publish(change) {
      await deliver(change);
      await db.notify(channel, change);
    },
    subscribe,
    async start() {
      unlisten ??= await db.listen(channel, deliverHeard);
    },
    async stop() {
      await unlisten?.();
      unlisten = undefined;
    },
  };
}
