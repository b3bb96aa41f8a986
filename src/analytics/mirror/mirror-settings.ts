/** The DuckDB settings a node's mirror opens with (MIRROR_MEMORY_MB, MIRROR_THREADS). */
import { DEFAULT_MIRROR_MEMORY_MB, DEFAULT_MIRROR_THREADS } from '../../config/defaults';

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
