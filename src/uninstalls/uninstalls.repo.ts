import type { Db, Queryable } from '../db/db';
import { newId } from '../shared/ids';
import { insertEvent } from '../sdk/sdk.repo';
import type { Provider } from './push.model';

/** An install the checker may push to, with the key its queue is ordered by. */
export interface DueInstall {
  id: string;
  org_id: string;
  push_token: string;
  bundle_id: string | null;
  uninstall_checked_at: Date | null;
}

/** A position in the queue: after this check time (null: never checked) and install id. */
export interface QueueCursor {
  checkedAt: Date | null;
  id: string;
}

/** The queue key, as the index (sql/0098_uninstalls.sql) spells it. */
const QUEUE_KEY = "COALESCE(i.uninstall_checked_at, '-infinity'::timestamptz)";

/**
 * The next installs of a platform due for a check (never checked, or last checked before
 * `checkedBefore`), after `cursor`, in queue order. Apps without a bundle id are left out when
 * the provider needs one (the APNs topic).
 */
export async function dueInstalls(
  db: Queryable,
  input: { platform: string; checkedBefore: Date; cursor: QueueCursor | null; limit: number; needsBundleId: boolean },
): Promise<DueInstall[]> {
  const cursor = input.cursor ?? { checkedAt: null, id: '' };
  return db.query<DueInstall>(
    `SELECT i.id, i.org_id, i.push_token, a.bundle_id, i.uninstall_checked_at
       FROM installs i JOIN apps a ON a.id = i.app_id
      WHERE i.platform = $1 AND i.push_token IS NOT NULL AND i.uninstalled_at IS NULL
        AND ${QUEUE_KEY} < $2::timestamptz
        AND (${QUEUE_KEY}, i.id) > (COALESCE($3::timestamptz, '-infinity'::timestamptz), $4::text)
        AND (NOT $5::boolean OR a.bundle_id IS NOT NULL)
      ORDER BY ${QUEUE_KEY}, i.id
      LIMIT $6`,
    [input.platform, input.checkedBefore.toISOString(), cursor.checkedAt?.toISOString() ?? null, cursor.id, input.needsBundleId, input.limit],
    { planEachCall: true },
  );
}

/**
 * Installs whose push got an answer that settles them for this interval. Named by (org_id, id),
 * as a store sharded by organization routes them (docs/scaling.md).
 */
export async function recordChecks(db: Queryable, installs: readonly Pick<DueInstall, 'id' | 'org_id'>[], at: Date): Promise<void> {
  if (installs.length === 0) return;
  await db.query(
    `UPDATE installs i SET uninstall_checked_at = $2::timestamptz
       FROM jsonb_to_recordset($1::text::jsonb) AS s(id text, org_id text)
      WHERE i.org_id = s.org_id AND i.id = s.id`,
    [JSON.stringify(installs.map(({ id, org_id }) => ({ id, org_id }))), at.toISOString()],
  );
}

/**
 * Marks the install uninstalled and records an `uninstall` event on it, in one transaction. Only
 * while it still has the token that was refused and is not marked already: a token replaced
 * meanwhile came from a running app. Resolves to whether it was marked.
 */
export async function markUninstalled(db: Db, input: { orgId: string; installId: string; token: string; provider: Provider; at: Date }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [install] = await tx.query<{ org_id: string; app_id: string; device_id_hash: string; campaign_id: string | null }>(
      `UPDATE installs SET uninstalled_at = $3::timestamptz, uninstall_checked_at = $3::timestamptz, updated_at = now()
        WHERE org_id = $4 AND id = $1 AND push_token = $2 AND uninstalled_at IS NULL
        RETURNING org_id, app_id, device_id_hash, campaign_id`,
      [input.installId, input.token, input.at.toISOString(), input.orgId],
    );
    if (!install) return false;
    await insertEvent(tx, {
      id: newId(),
      orgId: install.org_id,
      appId: install.app_id,
      installId: input.installId,
      deviceIdHash: install.device_id_hash,
      name: 'uninstall',
      value: null,
      currency: null,
      // No visitor request behind it, so no address to place.
      region: null,
      params: { campaign_id: install.campaign_id, provider: input.provider },
      occurredAt: input.at,
    });
    return true;
  });
}

export interface CampaignUninstalls {
  campaign_id: string | null;
  uninstalls: number;
}

/**
 * The organization's installs marked uninstalled now, per campaign of their attribution (null:
 * organic or unattributed), optionally of one app and detected in [from, to).
 */
export function uninstallsByCampaign(db: Queryable, orgId: string, filter: { appId: string | null; from: string | null; to: string | null }): Promise<CampaignUninstalls[]> {
  return db.query<CampaignUninstalls>(
    `SELECT campaign_id, count(*)::int AS uninstalls
       FROM installs
      WHERE org_id = $1 AND uninstalled_at IS NOT NULL
        AND ($2::text IS NULL OR app_id = $2::text)
        AND ($3::timestamptz IS NULL OR uninstalled_at >= $3::timestamptz)
        AND ($4::timestamptz IS NULL OR uninstalled_at < $4::timestamptz)
      GROUP BY campaign_id
      ORDER BY uninstalls DESC, campaign_id NULLS LAST`,
    [orgId, filter.appId, filter.from, filter.to],
  );
}
