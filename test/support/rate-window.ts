/**
 * Rate limits count in fixed one-minute windows (src/http/rate-limit.ts), so a burst of calls
 * that straddles the end of a window starts counting again at zero and never reaches its 429.
 * A test that sends a burst and expects the limit calls this first: it waits for the next
 * window when fewer than `needMs` are left in the current one.
 */
export async function awayFromWindowEnd(needMs = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await Bun.sleep(left + 100);
}
