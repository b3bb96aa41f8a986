import type { Db } from '../db/db';

const CHANNEL = 'svc_link_changed';

/**
 * Tells every node that a link changed (pause, destination, domain ...). Local subscribers run
 * before publish() resolves, so the change takes effect at once on this node; other nodes hear
 * it through Postgres NOTIFY within milliseconds. The payload is the link id.
 */
export interface LinkChanges {
  publish(linkId: string): Promise<void>;
  subscribe(onChange: (linkId: string) => void): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createLinkChanges(db: Db): LinkChanges {
  const subscribers = new Set<(linkId: string) => void>();
  const deliver = (linkId: string) => {
    for (const subscriber of subscribers) subscriber(linkId);
  };
  let unlisten: (() => Promise<void>) | undefined;
  return {
    async publish(linkId) {
      deliver(linkId);
      await db.notify(CHANNEL, linkId);
    },
    subscribe(onChange) {
      subscribers.add(onChange);
      return () => subscribers.delete(onChange);
    },
    async start() {
      unlisten ??= await db.listen(CHANNEL, deliver);
    },
    async stop() {
      await unlisten?.();
      unlisten = undefined;
    },
  };
}
