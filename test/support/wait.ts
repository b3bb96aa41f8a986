/**
 * Polls `check` until it gives a value other than undefined, null or false, and returns that
 * value; fails after `timeoutMs`. It waits for a state, it measures nothing: the assertions
 * that follow decide.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, everyMs = 25 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<Exclude<T, undefined | null | false>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value as Exclude<T, undefined | null | false>;
    if (performance.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms`);
    await Bun.sleep(everyMs);
  }
}
