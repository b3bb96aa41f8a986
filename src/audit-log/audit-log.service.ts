import type { Db } from '../db/db';
import { readPage, type Page } from '../http/pagination';
import { type AuditActor, type AuditEntry, type AuditQuery, type AuditRow, DEFAULT_AUDIT_LIMIT } from './audit-log.model';
import * as repo from './audit-log.repo';

function actorOf(row: AuditRow): AuditActor {
  if (row.user_id) return { kind: 'user', user_id: row.user_id, email: row.email };
  if (row.api_key_id) return { kind: 'api_key', api_key_id: row.api_key_id, prefix: row.prefix };
  return { kind: 'operator' };
}

const view = (row: AuditRow): AuditEntry => ({
  id: row.id,
  created_at: row.created_at.toISOString(),
  actor: actorOf(row),
  action: row.action,
  entity: row.entity,
  entity_id: row.entity_id,
  detail: row.detail ?? null,
});

/** Who changed what and when in the organization, newest first, a page at a time. */
export function listAuditLog({ db }: { db: Db }, orgId: string, query: AuditQuery = {}): Promise<Page<AuditEntry>> {
  return readPage({ keyset: repo.AUDIT_KEYSET, orgId, query, defaultLimit: DEFAULT_AUDIT_LIMIT, fetch: (page) => repo.listAudit(db, orgId, page), keyOf: (row) => [row.id], view });
}
