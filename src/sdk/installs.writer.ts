import type { Queryable } from '../db/db';
import { isStatementRefused } from '../db/errors';
import { createGroupCommit, type GroupCommit } from '../shared/group-commit';
import type { WriteBurst } from '../shared/write-burst';
import { insertInstalls, type InstallRow, type NewInstall } from './installs.repo';

export type InstallWriter = GroupCommit<NewInstall, InstallRow | null>;

/**
 * New installs are inserted by group commit (src/shared/group-commit.ts), so a launch-day burst
 * costs a few commits, not one per device. Two installs of one device may share a statement: the
 * second finds the first's row (ON CONFLICT DO NOTHING) and is answered as the repeat it is.
 */
export function createInstallWriter(db: Queryable, options: { maxBatch?: number; maxInFlight?: number; writeBurst?: WriteBurst } = {}): InstallWriter {
  return createGroupCommit({
    write: (installs) => insertInstalls(db, installs),
    retryAlone: isStatementRefused,
    maxBatch: options.maxBatch ?? 128,
    maxInFlight: options.maxInFlight ?? 1,
    onCommitted: options.writeBurst?.record,
  });
}
