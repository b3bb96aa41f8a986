/**
 * The DuckDB settings a node's mirror opens with (MIRROR_MEMORY_MB, MIRROR_THREADS). DuckDB's own
 * defaults are 80% of the machine's memory and a thread per core: far more than a node's share.
 */
export const DEFAULT_MIRROR_MEMORY_MB = 256;
export const DEFAULT_MIRROR_THREADS = 1;
/** Below this DuckDB has too little room to stage and upsert one batch beside its cached blocks. */
export const MIN_MIRROR_MEMORY_MB = 32;

export interface MirrorSettings {
  /** DuckDB's memory_limit in MiB: past it, cached blocks are evicted and work spills to disk. */
  memoryMb?: number;
  /** DuckDB's worker threads. */
  threads?: number;
}

/** The settings as DuckDBInstance.create takes them. */
export function duckSettings({ memoryMb = DEFAULT_MIRROR_MEMORY_MB, threads = DEFAULT_MIRROR_THREADS }: MirrorSettings): Record<string, string> {
  return { memory_limit: `${memoryMb}MiB`, threads: String(threads) };
}
