import type { Queryable } from '../db/db';
import { isStatementRefused } from '../db/errors';
import { createGroupCommit, type GroupCommit } from '../shared/group-commit';
import type { WriteBurst } from '../shared/write-burst';
import { saveClickConversions, type ClickConversion, type ClickConversionOutcome } from './conversions.repo';

export type ClickConversionWriter = GroupCommit<ClickConversion, ClickConversionOutcome>;

/**
 * The hot path's writer: conversions that name a click id are matched and stored by group
 * commit (src/shared/group-commit.ts), so a burst of postbacks costs a few statements and
 * commits, not one each. Two requests for the same order_id + event never share a statement.
 */
export function createClickConversionWriter(db: Queryable, options: { maxBatch?: number; maxInFlight?: number; writeBurst?: WriteBurst } = {}): ClickConversionWriter {
  return createGroupCommit({
    write: (requests) => saveClickConversions(db, requests),
    keyOf: ({ fields }) => (fields.orderId === null ? null : JSON.stringify([fields.orgId, fields.orderId, fields.eventName])),
    retryAlone: isStatementRefused,
    maxBatch: options.maxBatch ?? 128,
    maxInFlight: options.maxInFlight ?? 1,
    onCommitted: options.writeBurst?.record,
  });
}
