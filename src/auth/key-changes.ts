import { createChangeChannel, type ChangeChannel } from '../db/change-channel';
import type { Db } from '../db/db';
import type { ApiKeyCache } from './api-key-cache';
import type { SdkKeyCache } from './sdk-key-cache';

const CHANNEL = 'svc_key_changed';

/** A change to one API key (revoked, limit set) or to the SDK key of one app (limit set). */
export type KeyChange = { kind: 'api'; keyId: string } | { kind: 'sdk'; appId: string };

/**
 * Tells every node's key caches that a key changed, the way link changes reach the redirect
 * caches: this node's drop it before publish() resolves, others' when they hear the NOTIFY. So
 * a new limit counts from the next request on every node, not once a cached entry expires.
 */
export interface KeyChanges {
  publish(change: KeyChange): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const encode = (change: KeyChange) => (change.kind === 'api' ? `api:${change.keyId}` : `sdk:${change.appId}`);

export function createKeyChanges(db: Db, caches: { apiKeyCache: Pick<ApiKeyCache, 'forget'>; sdkKeyCache: Pick<SdkKeyCache, 'forget'> }): KeyChanges {
  const channel: ChangeChannel = createChangeChannel(db, CHANNEL);
  channel.subscribe((payload) => {
    const colon = payload.indexOf(':');
    const kind = payload.slice(0, colon);
    const id = payload.slice(colon + 1);
    if (kind === 'api') caches.apiKeyCache.forget(id);
    else if (kind === 'sdk') caches.sdkKeyCache.forget(id);
  });
  return {
    async publish(change) {
      // The write is committed: a failed NOTIFY leaves other nodes' entries to expire (30 s, 5 s), so it is logged, not thrown.
      try {
        await channel.publish(encode(change));
      } catch (error) {
        console.error('key change notification failed', encode(change), error);
      }
    },
    start: () => channel.start(),
    stop: () => channel.stop(),
  };
}
