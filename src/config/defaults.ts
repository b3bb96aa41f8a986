/**
 * The defaults of the variables whose values the features also need at run time: config.ts
 * parses against them, and the features read them from here, so no lower layer imports a feature.
 */

/**
 * MIRROR_MEMORY_MB and MIRROR_THREADS unless set. DuckDB's own defaults are 80% of the machine's
 * memory and a thread per core: far more than a node's share.
 */
export const DEFAULT_MIRROR_MEMORY_MB = 256;
export const DEFAULT_MIRROR_THREADS = 1;
/** Below this DuckDB has too little room to stage and upsert one batch beside its cached blocks. */
export const MIN_MIRROR_MEMORY_MB = 32;

/** JOURNAL_SYNC_MS unless set: how often the click journal is synced to the disk. */
export const DEFAULT_JOURNAL_SYNC_MS = 100;
