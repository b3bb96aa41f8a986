import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { journalDirOf, type ClickPipeline } from '../pipeline/click-pipeline';
import { holdsSegments } from '../pipeline/journal/segment-files';

/** Tracking listener threads journal under `<DATA_DIR>/listeners/<index>/journal`, one directory each. */
const LISTENERS_DIR = 'listeners';

/** The data directory of tracking listener `index`: its click journal and set-aside file live there. */
export function listenerDataDir(dataDir: string, index: number): string {
  return join(dataDir, LISTENERS_DIR, String(index));
}

/**
 * Writes what the listener threads of an earlier run left in their journals, at boot, before the
 * node serves: a node restarted with fewer TRACKING_THREADS still owes Postgres every click those
 * threads answered. A journal that holds no segment is not opened.
 */
export async function replayListenerJournals(dataDir: string, open: (dataDir: string) => ClickPipeline): Promise<void> {
  const root = join(dataDir, LISTENERS_DIR);
  if (!existsSync(root)) return;
  for (const name of readdirSync(root).sort()) {
    if (!/^[0-9]+$/.test(name)) continue;
    // A journal with no segment owes nothing; opening it would write its 8 MiB spare segment
    // only for the stop to delete it again.
    if (!holdsSegments(journalDirOf(join(root, name)))) continue;
    const pipeline = open(join(root, name));
    await pipeline.start();
    await pipeline.stop();
  }
}
