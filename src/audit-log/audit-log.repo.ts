import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { AuditRow } from './audit-log.model';

/** Newest first, as audit_log_org_idx keeps them; the cursor names the last row shown. */
export const AUDIT_KEYSET: Keyset = { kind: 'anchor', list: 'audit', table: 'audit_log', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

/** The rows with their actor's email or key prefix, read from the organization's own users and keys only. */
export function listAudit(db: Queryable, orgId: string, page: PageRequest): Promise<AuditRow[]> {
  const after = keysetCondition(AUDIT_KEYSET, page.after, 3, '$1', 'a_.');
  return db.query<AuditRow>(
    `SELECT a_.id, a_.created_at, a_.api_key_id, a_.user_id, u.email, k.prefix, a_.action, a_.entity, a_.entity_id, a_.detail
     FROM audit_log a_
     LEFT JOIN users u ON u.id = a_.user_id
     LEFT JOIN api_keys k ON k.id = a_.api_key_id AND k.org_id = a_.org_id
     WHERE a_.org_id = $1 AND ${after.sql}
     ORDER BY ${keysetOrder(AUDIT_KEYSET, 'a_.')} LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}
