/**
 * Whether the node is in a write burst: at least `perSecond` rows written by the hot write paths
 * (conversions, installs) in the last second, counted in ten buckets so a burst straddling a
 * second counts whole. The analytics mirror waits while it is (docs/analytics-mirror.md).
 */
export interface WriteBurst {
  /** Rows just committed by a hot write path. */
  record(rows: number): void;
  busy(): boolean;
}

/** Below this rate a mirror round costs the answers nothing noticeable; far above it, it shows in their tail latency. */
export const WRITE_BURST_PER_SECOND = 200;

const BUCKET_MS = 100;
const BUCKETS = 10;

export function createWriteBurst(options: { perSecond?: number; now?: () => number } = {}): WriteBurst {
  const perSecond = options.perSecond ?? WRITE_BURST_PER_SECOND;
  const now = options.now ?? (() => performance.now());
  const buckets = new Array<number>(BUCKETS).fill(0);
  let bucket = Math.floor(now() / BUCKET_MS);
  let lastSecond = 0;

  /** Empties the buckets that have fallen out of the last second since the previous call. */
  const roll = () => {
    const at = Math.floor(now() / BUCKET_MS);
    for (let next = Math.max(bucket + 1, at - BUCKETS + 1); next <= at; next++) {
      lastSecond -= buckets[next % BUCKETS]!;
      buckets[next % BUCKETS] = 0;
    }
    bucket = Math.max(bucket, at);
  };

  return {
    record(rows) {
      roll();
      buckets[bucket % BUCKETS]! += rows;
      lastSecond += rows;
    },
    busy() {
      roll();
      return lastSecond >= perSecond;
    },
  };
}
