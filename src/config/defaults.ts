/**
 * The defaults of the variables whose values the features also need at run time: config.ts
 * parses against them, and the features read them from here, so no lower layer imports a feature.
 */

import { availableParallelism, totalmem } from 'node:os';

/**
 * MIRROR_MEMORY_MB and MIRROR_THREADS unless set. DuckDB's own memory default, 80% of the
 * machine's, is far more than a node's share. Its threads follow the cores as DuckDB's own
 * default does, up to 4 so that each keeps a useful part of the 256 MB: a report is
 * then about twice as fast on 2 cores, and redirects measured no cost from it
 * (docs/performance-analytics.md, "Threads").
 */
export const DEFAULT_MIRROR_MEMORY_MB = 256;
export const MAX_DEFAULT_MIRROR_THREADS = 4;
export const DEFAULT_MIRROR_THREADS = Math.min(availableParallelism(), MAX_DEFAULT_MIRROR_THREADS);
/** Below this DuckDB has too little room to stage and upsert one batch beside its cached blocks. */
export const MIN_MIRROR_MEMORY_MB = 32;

/**
 * EMBEDDED_BUFFERS_MB unless set: PGlite's shared_buffers, a thousandth of the machine's memory,
 * 16 to 128 MiB. The buffers live in the WebAssembly heap, which never gives memory back, and
 * cache pages the kernel's page cache holds anyway (PGlite reads its files through node:fs), so
 * a small pool costs little; Postgres's own default, 128 MiB, was a third of an idle node
 * (docs/performance.md, "Memory at rest").
 */
export const MIN_EMBEDDED_BUFFERS_MB = 16;
export const MAX_EMBEDDED_BUFFERS_MB = 4096;
export const DEFAULT_EMBEDDED_BUFFERS_MB = Math.min(128, Math.max(MIN_EMBEDDED_BUFFERS_MB, Math.floor(totalmem() / 1024 / 1024 / 1024)));

/** JOURNAL_SYNC_MS unless set: how often the click journal is synced to the disk. */
export const DEFAULT_JOURNAL_SYNC_MS = 100;
