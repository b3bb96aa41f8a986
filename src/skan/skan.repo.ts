import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { SourceIdentifierMatch } from './skan-decode';
import type { DecodedPostback, SkanFigures, SkanPostbackRow } from './skan.model';

const COLUMNS = `id, org_id, app_id, campaign_id, transaction_id, version, ad_network_id, source_identifier, source_app_id,
  source_domain, conversion_value, coarse_conversion_value, postback_sequence_index, fidelity_type, did_win, redownload,
  verified, created_at`;

/** `id<digits>` in the path of an App Store page URL (apps.apple.com, itunes.apple.com). */
const APPLE_STORE_URL_ID = '^https?://(?:apps|itunes)\\.apple\\.com/(?:[^?#]*/)?id([0-9]+)(?:[/?#]|$)';

export async function organizationExists(db: Queryable, orgId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM organizations WHERE id = $1', [orgId])).length > 0;
}

/**
 * The organization's app with this App Store id: its apple_app_id, or else the id in its App Store
 * store_url. An app that states apple_app_id is preferred, then the oldest.
 */
export async function findAppByAppStoreId(db: Queryable, orgId: string, appStoreId: string): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM apps
      WHERE org_id = $1 AND deleted_at IS NULL
        AND (apple_app_id = $2 OR (apple_app_id IS NULL AND substring(lower(store_url) from $3::text) = $2))
      ORDER BY apple_app_id IS NOT NULL DESC, created_at, id
      LIMIT 1`,
    [orgId, appStoreId, APPLE_STORE_URL_ID],
  );
  return rows[0]?.id ?? null;
}

/** The one campaign whose skan_source_identifier matches; none when none or several do. */
export async function findCampaignBySourceIdentifier(db: Queryable, orgId: string, match: SourceIdentifierMatch): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM campaigns
      WHERE org_id = $1 AND skan_source_identifier IS NOT NULL AND skan_source_identifier % $2::integer = $3::integer
      LIMIT 2`,
    [orgId, match.modulus, match.value],
  );
  return rows.length === 1 ? rows[0]!.id : null;
}

export interface NewPostback {
  id: string;
  orgId: string;
  appId: string | null;
  campaignId: string | null;
  decoded: DecodedPostback;
  verified: boolean;
  raw: unknown;
}

/** Inserts unless the organization has the transaction id already; undefined then, and nothing was written. */
export async function insertPostback(db: Queryable, postback: NewPostback): Promise<string | undefined> {
  const d = postback.decoded;
  const rows = await db.query<{ id: string }>(
    `INSERT INTO skan_postbacks (id, org_id, app_id, campaign_id, transaction_id, version, ad_network_id, source_identifier,
       source_app_id, source_domain, conversion_value, coarse_conversion_value, postback_sequence_index, fidelity_type, did_win,
       redownload, verified, raw)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18::text::jsonb)
     ON CONFLICT (org_id, transaction_id) DO NOTHING
     RETURNING id`,
    [
      postback.id,
      postback.orgId,
      postback.appId,
      postback.campaignId,
      d.transactionId,
      d.version,
      d.adNetworkId,
      d.sourceIdentifier,
      d.sourceAppId,
      d.sourceDomain,
      d.conversionValue,
      d.coarseConversionValue,
      d.postbackSequenceIndex,
      d.fidelityType,
      d.didWin,
      d.redownload,
      postback.verified,
      JSON.stringify(postback.raw),
    ],
  );
  return rows[0]?.id;
}

export async function findPostbackId(db: Queryable, orgId: string, transactionId: string): Promise<string | undefined> {
  const rows = await db.query<{ id: string }>('SELECT id FROM skan_postbacks WHERE org_id = $1 AND transaction_id = $2', [orgId, transactionId]);
  return rows[0]?.id;
}

/** Newest first; the cursor names the last postback shown. */
export const SKAN_POSTBACKS_KEYSET: Keyset = { kind: 'anchor', list: 'skan-postbacks', table: 'skan_postbacks', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listPostbacks(db: Queryable, orgId: string, page: PageRequest): Promise<SkanPostbackRow[]> {
  const after = keysetCondition(SKAN_POSTBACKS_KEYSET, page.after, 3);
  return db.query<SkanPostbackRow>(
    `SELECT ${COLUMNS} FROM skan_postbacks WHERE org_id = $1 AND ${after.sql} ORDER BY ${keysetOrder(SKAN_POSTBACKS_KEYSET)} LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}

/**
 * A campaign's SKAN figures from its postbacks (docs/skan.md, "Counting"). A postback wins unless
 * it says did-win false (2.2 has no did-win: only winners get one); the first window's winners are installs.
 */
export async function skanFigures(db: Queryable, orgId: string, campaignId: string): Promise<SkanFigures> {
  const [row] = await db.query<Record<string, number>>(
    `SELECT count(*)::integer AS postbacks,
            count(*) FILTER (WHERE won AND first)::integer AS installs,
            count(*) FILTER (WHERE won AND first AND redownload)::integer AS redownloads,
            count(conversion_value) FILTER (WHERE won)::integer AS fine_count,
            coalesce(sum(conversion_value) FILTER (WHERE won), 0)::integer AS fine_sum,
            count(*) FILTER (WHERE won AND coarse_conversion_value = 'low')::integer AS coarse_low,
            count(*) FILTER (WHERE won AND coarse_conversion_value = 'medium')::integer AS coarse_medium,
            count(*) FILTER (WHERE won AND coarse_conversion_value = 'high')::integer AS coarse_high
       FROM (SELECT did_win IS DISTINCT FROM false AS won, coalesce(postback_sequence_index, 0) = 0 AS first,
                    redownload, conversion_value, coarse_conversion_value
               FROM skan_postbacks WHERE org_id = $1 AND campaign_id = $2) AS postbacks`,
    [orgId, campaignId],
  );
  const r = row!;
  return {
    postbacks: r.postbacks!,
    installs: r.installs!,
    redownloads: r.redownloads!,
    conversion_values: { count: r.fine_count!, sum: r.fine_sum! },
    coarse_conversion_values: { low: r.coarse_low!, medium: r.coarse_medium!, high: r.coarse_high! },
  };
}
