import type { Queryable } from '../db/db';
import type { ErasureCounts, ErasureStatus, ErasureView, Subject, SubjectKind } from './erasure.model';

/** SQL of erasure_requests: the durable queue of requests and their audit record. */

export interface NewRequest {
  id: string;
  orgId: string;
  subject: Subject;
  subjectKey: string;
  source: 'api' | 'sdk';
  apiKeyId: string | null;
  appId: string | null;
}

/**
 * Files the request, or finds the pending one for the same subject: idempotent on the partial
 * unique index, never read-then-write. `created` is false for a repeat.
 */
export async function insertRequest(tx: Queryable, request: NewRequest): Promise<{ id: string; status: ErasureStatus; created: boolean }> {
  const range = request.subject.kind === 'ip' ? [request.subject.fromDay, request.subject.toDay] : [null, null];
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO erasure_requests (id, org_id, subject_kind, subject_key, subject_value, from_day, to_day, source, api_key_id, app_id)
     VALUES ($1, $2, $3, $4, $5, $6::date, $7::date, $8, $9, $10)
     ON CONFLICT (org_id, subject_key) WHERE status = 'pending' DO NOTHING
     RETURNING id`,
    [request.id, request.orgId, request.subject.kind, request.subjectKey, request.subject.value, range[0], range[1], request.source, request.apiKeyId, request.appId],
  );
  if (inserted.length > 0) return { id: inserted[0]!.id, status: 'pending', created: true };
  const [existing] = await tx.query<{ id: string }>(
    `SELECT id FROM erasure_requests WHERE org_id = $1 AND subject_key = $2 AND status = 'pending'`,
    [request.orgId, request.subjectKey],
  );
  // The pending one finished between the two statements: the repeat is then a new request.
  if (!existing) return insertRequest(tx, request);
  return { id: existing.id, status: 'pending', created: false };
}

interface RequestRow {
  id: string;
  status: ErasureStatus;
  subject_kind: SubjectKind;
  source: 'api' | 'sdk';
  counts: ErasureCounts;
  error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/** One organization's request; another organization's reads as unknown. */
export async function findRequest(db: Queryable, orgId: string, id: string): Promise<ErasureView | null> {
  const [row] = await db.query<RequestRow>(
    `SELECT id, status, subject_kind, source, counts, error, created_at, completed_at FROM erasure_requests WHERE org_id = $1 AND id = $2`,
    [orgId, id],
  );
  if (!row) return null;
  return {
    id: row.id,
    status: row.status,
    subject: row.subject_kind,
    source: row.source,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    counts: row.counts,
    error: row.error,
  };
}

/** A request claimed for one pass. */
export interface ClaimedRequest {
  id: string;
  orgId: string;
  subject: Subject;
  /** The SDK's requests erase within their app only. */
  scopeAppId: string | null;
  sweptOnce: boolean;
  attempts: number;
  counts: ErasureCounts;
}

interface ClaimRow {
  id: string;
  org_id: string;
  subject_kind: SubjectKind;
  subject_value: string;
  from_day: string | null;
  to_day: string | null;
  source: 'api' | 'sdk';
  app_id: string | null;
  swept_once: boolean;
  attempts: number;
  counts: ErasureCounts;
}

/**
 * Claims due requests for `leaseMs`: a node that dies mid-pass frees them when the lease ends,
 * and the next pass (of any node) runs them again; every pass is safe to repeat.
 */
export async function claimDueRequests(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedRequest[]> {
  const rows = await db.query<ClaimRow>(
    `UPDATE erasure_requests
        SET attempts = attempts + 1, next_attempt_at = now() + ($2::int * interval '1 millisecond')
      WHERE id IN (SELECT id FROM erasure_requests
                    WHERE status = 'pending' AND next_attempt_at <= now()
                    ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING id, org_id, subject_kind, subject_value, to_char(from_day, 'YYYY-MM-DD') AS from_day,
                to_char(to_day, 'YYYY-MM-DD') AS to_day, source, app_id, swept_once, attempts, counts`,
    [limit, leaseMs],
  );
  return rows.map((row) => ({
    id: row.id,
    orgId: row.org_id,
    subject:
      row.subject_kind === 'ip'
        ? { kind: 'ip', value: row.subject_value, fromDay: row.from_day!, toDay: row.to_day! }
        : { kind: row.subject_kind, value: row.subject_value },
    scopeAppId: row.source === 'sdk' ? row.app_id : null,
    sweptOnce: row.swept_once,
    attempts: row.attempts,
    counts: row.counts,
  }));
}

/** After the first pass: the sweep is due in `sweepMs`, and the attempts start again. */
export async function scheduleSweep(tx: Queryable, id: string, counts: ErasureCounts, sweepMs: number): Promise<void> {
  await tx.query(
    `UPDATE erasure_requests SET counts = $2::text::jsonb, swept_once = true, attempts = 0,
            next_attempt_at = now() + ($3::int * interval '1 millisecond')
      WHERE id = $1 AND status = 'pending'`,
    [id, JSON.stringify(counts), sweepMs],
  );
}

/** The last pass ran: the subject's value goes, the counts stay. */
export async function completeRequest(tx: Queryable, id: string, counts: ErasureCounts): Promise<void> {
  await tx.query(
    `UPDATE erasure_requests SET status = 'completed', counts = $2::text::jsonb, subject_value = NULL, completed_at = now(), error = NULL
      WHERE id = $1 AND status = 'pending'`,
    [id, JSON.stringify(counts)],
  );
}

/** A pass failed: again after `retryMs`, or given up on (the subject's value goes too). */
export async function recordFailure(db: Queryable, id: string, error: string, retryMs: number | null): Promise<void> {
  if (retryMs === null) {
    await db.query(
      `UPDATE erasure_requests SET status = 'failed', subject_value = NULL, error = $2, completed_at = now() WHERE id = $1 AND status = 'pending'`,
      [id, error],
    );
    return;
  }
  await db.query(`UPDATE erasure_requests SET error = $2, next_attempt_at = now() + ($3::int * interval '1 millisecond') WHERE id = $1 AND status = 'pending'`, [
    id,
    error,
    retryMs,
  ]);
}
