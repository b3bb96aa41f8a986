/** Allows `perSecond` calls per second on average, with bursts up to the same number. */
export function tokenBucket(perSecond: number, now: () => number): () => boolean {
  let tokens = perSecond;
  let last = now();
  return () => {
    const at = now();
    tokens = Math.min(perSecond, tokens + ((at - last) / 1000) * perSecond);
    last = at;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}
