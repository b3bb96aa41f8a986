import type { Queryable } from '../db/db';

export interface ForwarderRow {
  app_id: string;
  url: string;
  headers: Record<string, string>;
  enabled: boolean;
  updated_at: Date;
}

const COLUMNS = 'app_id, url, headers, enabled, updated_at';

export async function findForwarder(db: Queryable, orgId: string, appId: string): Promise<ForwarderRow | null> {
  const rows = await db.query<ForwarderRow>(`SELECT ${COLUMNS} FROM app_forwarders WHERE org_id = $1 AND app_id = $2`, [orgId, appId]);
  return rows[0] ?? null;
}

/** Replaces the app's forwarder (PUT semantics: safe to repeat). */
export async function upsertForwarder(
  db: Queryable,
  input: { orgId: string; appId: string; url: string; headers: Record<string, string>; enabled: boolean },
): Promise<ForwarderRow> {
  const rows = await db.query<ForwarderRow>(
    `INSERT INTO app_forwarders (app_id, org_id, url, headers, enabled)
     VALUES ($1, $2, $3, $4::text::jsonb, $5)
     ON CONFLICT (app_id) DO UPDATE SET url = EXCLUDED.url, headers = EXCLUDED.headers, enabled = EXCLUDED.enabled, updated_at = now()
     RETURNING ${COLUMNS}`,
    [input.appId, input.orgId, input.url, JSON.stringify(input.headers), input.enabled],
  );
  return rows[0]!;
}

/** Whether the app exists in the organization: another organization's app is "not found". */
export async function appInOrg(db: Queryable, orgId: string, appId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM apps WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, appId]);
  return rows.length > 0;
}
