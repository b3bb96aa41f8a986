import type { Queryable } from '../db/db';
import { newId } from '../shared/ids';

/** Who made a write: an API key (REST) or a dashboard user (session). */
export interface Actor {
  orgId: string;
  apiKeyId?: string | null;
  userId?: string | null;
}

/** Records a write in the audit log; call it inside the transaction that makes the write. */
export async function recordAudit(
  tx: Queryable,
  actor: Actor,
  entry: { action: string; entity: string; entityId?: string | null; detail?: unknown },
): Promise<void> {
  await tx.query(
    `INSERT INTO audit_log (id, org_id, api_key_id, user_id, action, entity, entity_id, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb)`,
    [newId(), actor.orgId, actor.apiKeyId ?? null, actor.userId ?? null, entry.action, entry.entity, entry.entityId ?? null, entry.detail === undefined ? null : JSON.stringify(entry.detail)],
  );
}
