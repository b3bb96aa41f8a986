import type { Queryable } from '../../db/db';
import { errorMessage } from '../../shared/error-message';
import type { Clock } from '../../shared/ids';
import { addClickCounts, orgMinuteKey, pruneClickCounts, type MinuteCount } from './click-counts.repo';

/**
 * Clicks answered by this thread, counted per organization and minute the moment they are
 * journaled, and added to the shared `realtime_clicks` rows every FLUSH_MS: the realtime
 * counters see a click before the batcher writes it (docs/dashboard.md, "Realtime").
 */
export interface ClickCounter {
  /** One click of `orgId` at `createdAt` (ISO text or epoch ms); one older than the window is not counted. */
  count(orgId: string, createdAt: string | number): void;
  /** This thread's counts of `orgId` not yet in the shared rows (those being added included). */
  unflushed(orgId: string): MinuteCount[];
  /**
   * `orgId`'s counts: the shared rows as `readShared` reads them plus this thread's unflushed
   * ones, with no add of this thread's in flight meanwhile, so a click is neither missed nor
   * counted twice. An add asked for during a read waits for it; reads asked for then wait for the add.
   */
  withShared(orgId: string, readShared: () => Promise<MinuteCount[]>): Promise<MinuteCount[]>;
  /** Adds what is counted to the shared rows now; on failure the counts are kept for the next try. */
  flush(): Promise<void>;
  start(): void;
  /** Stops the timer and adds what is left. */
  stop(): Promise<void>;
}

export const REALTIME_WINDOW_MINUTES = 15;
export const MINUTE_MS = 60_000;
const WINDOW_MS = REALTIME_WINDOW_MINUTES * MINUTE_MS;
/** Every node adds its counts this often: two nodes' counters differ by at most this plus a poll. */
export const FLUSH_MS = 500;
/** Shared rows are kept this long, well past the window, and pruned at most this often. */
const KEEP_MS = 60 * MINUTE_MS;
const PRUNE_EVERY_MS = MINUTE_MS;

export const minuteOf = (time: number) => Math.floor(time / MINUTE_MS) * MINUTE_MS;

export function createClickCounter({ db, clock, flushMs = FLUSH_MS }: { db: Queryable; clock: Clock; flushMs?: number }): ClickCounter {
  let counts = new Map<string, number>();
  let adding = new Map<string, number>();
  let flushing: Promise<void> | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  let prunedAt = 0;
  let readers = 0;
  let readersDone: (() => void)[] = [];
  let lastFailure: string | undefined;
  const keyOf = minuteKeys(clock);

  const merge = (into: Map<string, number>, from: ReadonlyMap<string, number>) => {
    for (const [key, n] of from) into.set(key, (into.get(key) ?? 0) + n);
  };

  const addNow = async () => {
    adding = counts;
    counts = new Map();
    try {
      await addClickCounts(db, adding);
      adding = new Map();
      if (lastFailure !== undefined) console.error('realtime counter: adding counts works again');
      lastFailure = undefined;
    } catch (error) {
      merge(counts, adding);
      adding = new Map();
      const message = errorMessage(error);
      if (message !== lastFailure) console.error('realtime counter: adding counts failed; kept for the next try:', message);
      lastFailure = message;
      return;
    }
    const now = clock().getTime();
    if (now - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now;
      await pruneClickCounts(db, new Date(now - KEEP_MS)).catch(() => {});
    }
  };

  const flush = (): Promise<void> => {
    if (flushing) return flushing.then(() => (counts.size > 0 ? flush() : undefined));
    if (counts.size === 0) return Promise.resolve();
    flushing = (async () => {
      while (readers > 0) await new Promise<void>((resolve) => readersDone.push(resolve));
      await addNow();
    })().finally(() => (flushing = null));
    return flushing;
  };

  const withShared = async (orgId: string, readShared: () => Promise<MinuteCount[]>): Promise<MinuteCount[]> => {
    while (flushing) await flushing;
    readers++;
    try {
      return [...(await readShared()), ...unflushedOf(orgId, [counts, adding])];
    } finally {
      if (--readers === 0) {
        const waiting = readersDone;
        readersDone = [];
        for (const resolve of waiting) resolve();
      }
    }
  };

  return {
    count(orgId, createdAt) {
      const key = keyOf(orgId, createdAt);
      if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    unflushed: (orgId) => unflushedOf(orgId, [counts, adding]),
    withShared,
    flush,
    start() {
      if (timer) return;
      timer = setInterval(() => void flush(), flushMs);
      timer.unref?.();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}

/**
 * The count key of a click, or undefined when it is older than the window. Counted on the thread
 * that answers redirects: clicks of one burst share their text time (one per millisecond) and
 * their key, so each is parsed and built once.
 */
function minuteKeys(clock: Clock): (orgId: string, createdAt: string | number) => string | undefined {
  let lastCreatedAt: string | number | undefined;
  let lastTime = Number.NaN;
  let lastOrgId: string | undefined;
  let lastMinute = Number.NaN;
  let lastKey = '';
  return (orgId, createdAt) => {
    if (createdAt !== lastCreatedAt) {
      lastCreatedAt = createdAt;
      lastTime = typeof createdAt === 'number' ? createdAt : Date.parse(createdAt);
    }
    const time = lastTime;
    if (!(time >= clock().getTime() - WINDOW_MS)) return undefined;
    const minute = minuteOf(time);
    if (orgId !== lastOrgId || minute !== lastMinute) {
      lastOrgId = orgId;
      lastMinute = minute;
      lastKey = orgMinuteKey(orgId, minute);
    }
    return lastKey;
  };
}

/** One organization's counts per minute across the maps given (counted, and being added). */
function unflushedOf(orgId: string, maps: readonly ReadonlyMap<string, number>[]): MinuteCount[] {
  const prefix = `${orgId}\t`;
  const found = new Map<number, number>();
  for (const map of maps) {
    for (const [key, n] of map) {
      if (!key.startsWith(prefix)) continue;
      const minute = Number(key.slice(prefix.length));
      found.set(minute, (found.get(minute) ?? 0) + n);
    }
  }
  return [...found].map(([minute, count]) => ({ minute, count }));
}
