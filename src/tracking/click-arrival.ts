import { decodeTime } from 'ulid';
import type { Clock } from '../shared/ids';

/**
 * Waiting for a click still in the redirect pipeline (journal -> batch -> Postgres), for what
 * names a click right after it was answered: a conversion, a landing-page beacon. The click id
 * is a ULID minted at the redirect, so its time says whether the click is fresh enough to wait for.
 */
export interface ClickWaitTiming {
  /** A click id younger than this may still be on its way to Postgres. */
  freshClickMs: number;
  /** Clock skew tolerated between the node that minted the click id and this one. */
  futureSkewMs: number;
  /** Pauses between lookups while waiting; their sum bounds the wait (about 1.5 s). */
  retryDelaysMs: readonly number[];
}

export const DEFAULT_CLICK_WAIT: ClickWaitTiming = {
  freshClickMs: 10_000,
  futureSkewMs: 2_000,
  retryDelaysMs: [20, 40, 80, 160, 250, 250, 250, 250, 250],
};

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/** The time a ULID click id was minted, or null when the id is not a ULID. */
export function clickIdTime(clickId: string): number | null {
  if (!ULID_PATTERN.test(clickId)) return null;
  try {
    return decodeTime(clickId.toUpperCase());
  } catch {
    return null;
  }
}

/** True when a click with this id could still be in the pipeline at `now`. */
export function isFreshClickId(clickId: string, now: number, timing: ClickWaitTiming = DEFAULT_CLICK_WAIT): boolean {
  const minted = clickIdTime(clickId);
  if (minted === null) return false;
  return minted >= now - timing.freshClickMs && minted <= now + timing.futureSkewMs;
}

export interface ClickWaitDeps {
  clock: Clock;
  timing?: ClickWaitTiming;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * `find()` once, and while it finds nothing for a fresh click id, again after each pause.
 * Resolves to what it found, or null when the id is not fresh or the wait ran out.
 */
export async function waitForClick<T>(
  { clock, timing = DEFAULT_CLICK_WAIT, sleep = Bun.sleep }: ClickWaitDeps,
  clickId: string,
  find: () => Promise<T | null>,
): Promise<T | null> {
  const found = await find();
  if (found !== null || !isFreshClickId(clickId, clock().getTime(), timing)) return found;
  for (const delay of timing.retryDelaysMs) {
    await sleep(delay);
    const again = await find();
    if (again !== null) return again;
  }
  return null;
}
