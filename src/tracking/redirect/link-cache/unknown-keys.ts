import { Lru } from '../../../shared/cache';
import { KeyFilter } from './key-filter';
import { tokenBucket } from './token-bucket';

/**
 * What the cache knows of keys it holds no link for: unknown keys found in the database (a
 * bounded LRU), the key filter of every key that exists, and the rate at which keys the filter
 * has never seen may still go to the database.
 */
export class UnknownKeys {
  private readonly negatives: Lru<string, true>;
  private readonly filter = new KeyFilter();
  private readonly budget: () => boolean;
  private refusedCount = 0;

  constructor(capacity: number, options: { ttlMs: number; now: () => number; lookupsPerSecond: number }) {
    this.negatives = new Lru<string, true>(capacity, { ttlMs: options.ttlMs, now: options.now });
    this.budget = tokenBucket(options.lookupsPerSecond, options.now);
  }

  /** Whether the database said lately that the key has no link. */
  knownMissing(key: string): boolean {
    return this.negatives.get(key) === true;
  }

  /** Whether a key with no entry may go to the database: the filter may hold it, or the budget allows a miss. */
  mayLookUp(key: string): boolean {
    if (this.filter.mightContain(key) || this.budget()) return true;
    this.refusedCount++;
    return false;
  }

  /** The database holds a link under `key`. */
  exists(key: string): void {
    this.filter.add(key);
  }

  found(key: string): void {
    this.negatives.delete(key);
    this.filter.add(key);
  }

  missing(key: string): void {
    this.negatives.set(key, true);
  }

  /** Any change may create a key an earlier request found missing (a new link, a new domain). */
  forgetMissing(): void {
    this.negatives.clear();
  }

  stats() {
    return { negatives: this.negatives.size, refused: this.refusedCount, filterBytes: this.filter.bytes };
  }
}
