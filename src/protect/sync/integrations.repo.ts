import type { Queryable } from '../../db/db';

export type AdProvider = 'google_ads';

export interface IntegrationRow {
  provider: AdProvider;
  settings: { customer_id?: string; login_customer_id?: string | null };
  /** Sealed (src/shared/crypto/secret-box.ts); opened only by the service that uses them. */
  secrets: string;
  updated_at: Date;
}

const COLUMNS = 'provider, settings, secrets, updated_at';

export async function findIntegration(db: Queryable, orgId: string, provider: AdProvider): Promise<IntegrationRow | null> {
  const rows = await db.query<IntegrationRow>(`SELECT ${COLUMNS} FROM ad_integrations WHERE org_id = $1 AND provider = $2`, [orgId, provider]);
  return rows[0] ?? null;
}

/** Replaces the connection (PUT semantics); a sync under way keeps its lease. */
export async function upsertIntegration(
  db: Queryable,
  input: { orgId: string; provider: AdProvider; settings: IntegrationRow['settings']; secrets: string },
): Promise<IntegrationRow> {
  const rows = await db.query<IntegrationRow>(
    `INSERT INTO ad_integrations (org_id, provider, settings, secrets)
     VALUES ($1, $2, $3::text::jsonb, $4)
     ON CONFLICT (org_id, provider) DO UPDATE SET settings = EXCLUDED.settings, secrets = EXCLUDED.secrets, updated_at = now()
     RETURNING ${COLUMNS}`,
    [input.orgId, input.provider, JSON.stringify(input.settings), input.secrets],
  );
  return rows[0]!;
}

/** Whether there was a connection to remove. */
export async function deleteIntegration(db: Queryable, orgId: string, provider: AdProvider): Promise<boolean> {
  const rows = await db.query('DELETE FROM ad_integrations WHERE org_id = $1 AND provider = $2 RETURNING org_id', [orgId, provider]);
  return rows.length > 0;
}

/**
 * Takes the connection's sync lease for `seconds` unless another holder's is still running, and
 * reads the connection in the same statement. Null: no connection, or a sync holds it.
 */
export async function claimSyncLease(db: Queryable, orgId: string, provider: AdProvider, token: string, seconds: number): Promise<IntegrationRow | null> {
  const rows = await db.query<IntegrationRow>(
    `UPDATE ad_integrations SET sync_lease_token = $3, sync_lease_until = now() + make_interval(secs => $4)
     WHERE org_id = $1 AND provider = $2 AND (sync_lease_until IS NULL OR sync_lease_until < now())
     RETURNING ${COLUMNS}`,
    [orgId, provider, token, seconds],
  );
  return rows[0] ?? null;
}

/** Extends a lease still held under `token`; false when it was lost (disconnected, or expired and taken). */
export async function renewSyncLease(db: Queryable, orgId: string, provider: AdProvider, token: string, seconds: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE ad_integrations SET sync_lease_until = now() + make_interval(secs => $4)
     WHERE org_id = $1 AND provider = $2 AND sync_lease_token = $3 RETURNING org_id`,
    [orgId, provider, token, seconds],
  );
  return rows.length > 0;
}

export async function releaseSyncLease(db: Queryable, orgId: string, provider: AdProvider, token: string): Promise<void> {
  await db.query(
    'UPDATE ad_integrations SET sync_lease_token = NULL, sync_lease_until = NULL WHERE org_id = $1 AND provider = $2 AND sync_lease_token = $3',
    [orgId, provider, token],
  );
}
