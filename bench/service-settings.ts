/**
 * The service's own settings a benchmark passes through from its environment to the server it
 * starts, to compare them against the defaults (docs/performance.md): the click backlog, the
 * DuckDB mirror's interval, memory and threads, the tracking listener threads and the journal's
 * sync interval. Anything else in the bench's environment stays out of the server's.
 */
const PASSED_THROUGH = ['CLICK_BACKLOG', 'MIRROR_INTERVAL_MS', 'MIRROR_MEMORY_MB', 'MIRROR_THREADS', 'TRACKING_THREADS', 'JOURNAL_SYNC_MS', 'EMBEDDED_STORE_THREAD', 'EMBEDDED_BUFFERS_MB'] as const;

export function serviceSettingsFromEnv(): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const name of PASSED_THROUGH) if (process.env[name]) settings[name] = process.env[name]!;
  return settings;
}
