import { RAPID_REPEAT } from './risk-signals';

/**
 * Counts the clicks of one IP on one link within the rapid_repeat window, in memory, by each click's
 * own time (so a replayed journal counts the same). Keeps at most `limit + 1` times per key and
 * sweeps keys idle for a window, so memory stays bounded under a flood.
 */
export interface RepeatWindow {
  /** Records a click at `at` (ms) and says whether it is past the limit within the window. */
  exceeds(key: string, at: number): boolean;
  size(): number;
}

const SWEEP_EVERY = 10_000;
const MAX_KEYS = 200_000;

export function createRepeatWindow({ limit, windowMs } = RAPID_REPEAT): RepeatWindow {
  const times = new Map<string, number[]>();
  let newest = 0;
  let sinceSweep = 0;
  const sweep = () => {
    sinceSweep = 0;
    for (const [key, list] of times) if (list[list.length - 1]! <= newest - windowMs) times.delete(key);
    if (times.size > MAX_KEYS) times.clear();
  };
  return {
    exceeds(key, at) {
      if (at > newest) newest = at;
      if (++sinceSweep >= SWEEP_EVERY) sweep();
      let list = times.get(key);
      if (!list) times.set(key, (list = []));
      // Insert in time order: clicks of one batch may come slightly out of order.
      let index = list.length;
      while (index > 0 && list[index - 1]! > at) index--;
      list.splice(index, 0, at);
      if (list.length > limit + 1) list.shift();
      let within = 0;
      for (const time of list) if (time > at - windowMs && time <= at) within++;
      return within > limit;
    },
    size: () => times.size,
  };
}
