import type { Db } from '../../db/db';
import { errorMessage } from '../../shared/error-message';
import type { Journal } from './journal/journal';

/**
 * Deletes the journal's segments once the store has made their records durable: the commit
 * count is read first, then the store syncs, and only what was committed before is released.
 * One sync at a time; after a failed one the timer waits `retryAfterMs` (a stop tries at once).
 */
export class StoreSync {
  private syncing: Promise<void> | null = null;
  private retryAt = 0;

  constructor(
    private readonly db: Pick<Db, 'syncCommits'>,
    private readonly journal: Pick<Journal<unknown>, 'committed' | 'release' | 'deleted' | 'releasable'>,
    private readonly retryAfterMs: number,
  ) {}

  /** Whether the timer should sync now: a segment waits for release, and no failure is too recent. */
  due(): boolean {
    return this.journal.releasable() && Date.now() >= this.retryAt;
  }

  sync(): Promise<void> {
    this.syncing ??= (async () => {
      const committed = this.journal.committed();
      await this.db.syncCommits();
      this.journal.release(committed);
      await this.journal.deleted();
    })()
      .catch((error) => {
        this.retryAt = Date.now() + this.retryAfterMs;
        console.error('click pipeline: syncing the store failed; its segments stay in the journal:', errorMessage(error));
      })
      .finally(() => (this.syncing = null));
    return this.syncing;
  }

  /** Waits for a sync under way, then syncs what was committed since it began. */
  async syncAgain(): Promise<void> {
    if (this.syncing) await this.syncing;
    await this.sync();
  }
}
