/**
 * Paces postbacks per destination host on this node: a token bucket per host name (rate per
 * second, burst) that every send takes a token from. A delivery that finds the bucket empty
 * waits in the outbox for a slot after those already waiting, so a backlog drains at the rate;
 * coming back to an empty bucket it keeps its place and waits only for the next token.
 */
export interface HostPacer {
  /** 0 when the delivery may go now (it takes a token); otherwise how many ms it should wait. */
  admit(host: string, deliveryId: string, now?: number): number;
  /** What is remembered, for tests: idle hosts and long-missed slots are forgotten. */
  tracked(): { hosts: number; waiting: number };
}

interface Bucket {
  tokens: number;
  refilledAt: number;
  /** The latest slot handed to a waiting delivery. */
  lastSlot: number;
}

const SWEEP_EVERY_MS = 60_000;
/** A waiting delivery that has not come back in this long (another node took it) is forgotten. */
const WAITING_GRACE_MS = 5 * 60_000;

export function createHostPacer({ ratePerSecond, burst }: { ratePerSecond: number; burst: number }): HostPacer {
  const interval = 1000 / ratePerSecond;
  const buckets = new Map<string, Bucket>();
  /** Deliveries told to wait, by id, with their slot. */
  const waiting = new Map<string, number>();
  let sweptAt = -Infinity;

  const refill = (bucket: Bucket, now: number) => {
    if (now <= bucket.refilledAt) return;
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.refilledAt) / interval);
    bucket.refilledAt = now;
  };

  const sweep = (now: number) => {
    sweptAt = now;
    for (const [host, bucket] of buckets) {
      refill(bucket, now);
      // A full bucket with no slot ahead is what a host nobody sent to would get.
      if (bucket.tokens >= burst && bucket.lastSlot <= now) buckets.delete(host);
    }
    for (const [id, slot] of waiting) if (slot < now - WAITING_GRACE_MS) waiting.delete(id);
  };

  return {
    admit(host, deliveryId, now = Date.now()) {
      if (now - sweptAt >= SWEEP_EVERY_MS) sweep(now);
      let bucket = buckets.get(host);
      if (!bucket) buckets.set(host, (bucket = { tokens: burst, refilledAt: now, lastSlot: -Infinity }));
      refill(bucket, now);
      // Sums of fractions drift by rounding; a token a nanosecond short is a token.
      if (bucket.tokens >= 1 - 1e-9) {
        bucket.tokens = Math.max(0, bucket.tokens - 1);
        waiting.delete(deliveryId);
        return 0;
      }
      const nextToken = now + (1 - bucket.tokens) * interval;
      let slot = nextToken;
      if (!waiting.has(deliveryId)) {
        slot = Math.max(nextToken, bucket.lastSlot + interval);
        bucket.lastSlot = slot;
      }
      waiting.set(deliveryId, slot);
      return Math.max(1, Math.ceil(slot - now));
    },
    tracked: () => ({ hosts: buckets.size, waiting: waiting.size }),
  };
}
