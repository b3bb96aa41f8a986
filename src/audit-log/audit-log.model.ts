import { t } from 'elysia';
import { CursorQuery } from '../http/pagination';

/** The audit log as the dashboard reads it (docs/dashboard.md, "Audit log"). */
export const AuditQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, error: 'must be an integer from 1 to 500' })),
  cursor: CursorQuery,
});
export type AuditQuery = typeof AuditQuery.static;
export const DEFAULT_AUDIT_LIMIT = 50;

/** Who made a write: a dashboard user (by email), an API key (by prefix), or the operator (CLI, nobody named). */
export const AuditActor = t.Union([
  t.Object({ kind: t.Literal('user'), user_id: t.String(), email: t.Union([t.String(), t.Null()], { description: 'null once the user is gone' }) }),
  t.Object({ kind: t.Literal('api_key'), api_key_id: t.String(), prefix: t.Union([t.String(), t.Null()]) }),
  t.Object({ kind: t.Literal('operator') }),
]);
export type AuditActor = typeof AuditActor.static;

export const AuditEntry = t.Object({
  id: t.String(),
  created_at: t.String(),
  actor: AuditActor,
  action: t.String(),
  entity: t.String(),
  entity_id: t.Union([t.String(), t.Null()]),
  detail: t.Unknown(),
});
export type AuditEntry = typeof AuditEntry.static;

export interface AuditRow {
  id: string;
  created_at: Date;
  api_key_id: string | null;
  user_id: string | null;
  email: string | null;
  prefix: string | null;
  action: string;
  entity: string;
  entity_id: string | null;
  detail: unknown;
}
