import type { Db } from '../../../db/db';
import { findLinkByKey } from '../lookups.repo';
import { compileLink, type CompiledLink } from './compiled-link';

/**
 * Database lookups of links by key: concurrent lookups of one key share one query, and a lookup
 * that started before a link change (the epoch moved) answers without caching what it found.
 */
export class LinkLoads {
  private readonly inflight = new Map<string, Promise<CompiledLink | null>>();
  /** Bumped by every link change: a lookup that started before it must not cache its answer. */
  private epoch = 0;
  private count = 0;

  constructor(
    private readonly deps: { db: Db; requireVerifiedDomains: boolean },
    /** Caches what a lookup found (null: no link under the key). */
    private readonly remember: (key: string, link: CompiledLink | null) => void,
  ) {}

  /** The lookup of `key` under way, if any. */
  running(key: string): Promise<CompiledLink | null> | undefined {
    return this.inflight.get(key);
  }

  load(key: string, domain: string, slug: string): Promise<CompiledLink | null> {
    const running = this.inflight.get(key);
    if (running) return running;
    const startedAt = this.epoch;
    this.count++;
    const promise = findLinkByKey(this.deps.db, domain, slug).then(
      (row) => {
        this.inflight.delete(key);
        const link = row && (row.domain_verified || !this.deps.requireVerifiedDomains) ? compileLink(row) : null;
        if (this.epoch === startedAt) this.remember(key, link);
        return link;
      },
      (error) => {
        this.inflight.delete(key);
        throw error;
      },
    );
    this.inflight.set(key, promise);
    return promise;
  }

  /** A link changed: lookups under way answer without caching. */
  invalidate(): void {
    this.epoch++;
  }

  /** Lookups that went to the database. */
  databaseLookups(): number {
    return this.count;
  }
}
