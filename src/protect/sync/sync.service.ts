/**
 * POST /api/protect/sync: the organization's blocklist pushed as negative IP criteria to each of
 * its active Google Ads campaigns, one campaign at a time, under the connection's sync lease
 * (docs/protect-sync.md).
 */
import type { Mirror } from '../../analytics/mirror/mirror';
import { type Actor, recordAudit } from '../../auth/audit';
import type { Config } from '../../config/config';
import type { Db } from '../../db/db';
import { conflict, HttpError } from '../../http/errors';
import { newId, type Clock } from '../../shared/ids';
import { SecretBoxError } from '../../shared/crypto/secret-box';
import { BLOCKLIST_DAYS, selectBlocklist, type BlocklistEntry } from './blocklist.repo';
import { createGoogleAdsClient, GoogleAdsError, type GoogleAdsClient } from './google-ads/google-ads.client';
import { createIpBlock, isGoogleAdsCampaignId, listIpCriteria, removeCriterion } from './google-ads/ip-criteria';
import type { GoogleAdsConnection } from './integrations.model';
import { claimSyncLease, findIntegration, releaseSyncLease, renewSyncLease, type IntegrationRow } from './integrations.repo';
import { openGoogleAds } from './integrations.service';
import { selectInvalidThreshold } from '../settings.repo';
import type { SyncSummary } from './sync.model';
import { planCampaign } from './sync-plan';
import { recordExclusions, selectOwnedExclusions, selectSyncCampaigns, type SyncCampaign } from './sync.repo';

export interface ProtectSyncDeps {
  db: Db;
  /** The blocklist is read here: the clicks of the window without an index on the click insert path. */
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
  clock: Clock;
  config: Pick<Config, 'sessionSecret' | 'googleAdsApiUrl' | 'googleOauthTokenUrl'>;
}

const PROVIDER = 'google_ads';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Renewed before each campaign; a node that dies mid-sync blocks the next one this long at most. */
export const SYNC_LEASE_SECONDS = 300;
const LEASE_LOST = 'sync stopped: the ad account was disconnected, or its sync lease expired and another sync took over';

interface CampaignCounts {
  added: number;
  removed: number;
  kept: number;
  skipped: number;
}

export async function syncProtect(deps: ProtectSyncDeps, actor: Actor): Promise<SyncSummary> {
  const { db } = deps;
  const lease = newId();
  const row = await claimSyncLease(db, actor.orgId, PROVIDER, lease, SYNC_LEASE_SECONDS);
  if (!row) throw conflict((await findIntegration(db, actor.orgId, PROVIDER)) ? 'a sync is already running' : 'no ad account connected');
  try {
    const connection = openConnection(deps, actor.orgId, row);
    const summary: SyncSummary = { campaigns: 0, added: 0, removed: 0, kept: 0, skipped: 0, errors: [] };
    const campaigns = await selectSyncCampaigns(db, actor.orgId);
    if (campaigns.length === 0) return summary;
    const blocklist = await readBlocklist(deps, actor.orgId);
    const client = createGoogleAdsClient({ apiUrl: deps.config.googleAdsApiUrl, tokenUrl: deps.config.googleOauthTokenUrl }, connection);
    try {
      await client.authenticate();
    } catch (error) {
      // Every campaign would fail the same way: one answer that says to reconnect.
      if (error instanceof GoogleAdsError) throw new HttpError(502, { error: error.message });
      throw error;
    }
    for (const [index, campaign] of campaigns.entries()) {
      if (!(await renewSyncLease(db, actor.orgId, PROVIDER, lease, SYNC_LEASE_SECONDS))) {
        for (const left of campaigns.slice(index)) summary.errors.push({ campaign_id: left.id, external_id: left.external_id, error: LEASE_LOST });
        break;
      }
      const failed = (error: string) => summary.errors.push({ campaign_id: campaign.id, external_id: campaign.external_id, error });
      if (!isGoogleAdsCampaignId(campaign.external_id)) {
        failed('external_id is not a Google Ads campaign id (digits only)');
        continue;
      }
      try {
        const counts = await syncCampaign(deps, { actor, client, customerId: connection.customerId, blocklist }, campaign);
        summary.campaigns += 1;
        summary.added += counts.added;
        summary.removed += counts.removed;
        summary.kept += counts.kept;
        summary.skipped += counts.skipped;
      } catch (error) {
        if (!(error instanceof GoogleAdsError)) throw error;
        failed(error.message);
      }
    }
    return summary;
  } finally {
    await releaseSyncLease(db, actor.orgId, PROVIDER, lease);
  }
}

/**
 * The blocklist of the last BLOCKLIST_DAYS, from the mirror once it has caught up, so a click
 * already stored in Postgres is on it. Outside any transaction: catchUp() must not run in one.
 */
async function readBlocklist(deps: ProtectSyncDeps, orgId: string): Promise<BlocklistEntry[]> {
  await deps.mirror.catchUp();
  const threshold = await selectInvalidThreshold(deps.db, orgId);
  return selectBlocklist(deps.mirror, { orgId, since: new Date(deps.clock().getTime() - BLOCKLIST_DAYS * DAY_MS), threshold });
}

function openConnection(deps: ProtectSyncDeps, orgId: string, row: IntegrationRow): GoogleAdsConnection {
  try {
    return openGoogleAds(deps.config, orgId, row);
  } catch (error) {
    if (error instanceof SecretBoxError) throw conflict('the stored ad account credentials no longer open (SESSION_SECRET changed): connect the account again');
    throw error;
  }
}

/**
 * Reads the campaign's IP criteria, sends the difference in one atomic mutate (removals first, so
 * they make room), and records what Google accepted. Nothing to change: no mutate at all.
 */
async function syncCampaign(
  deps: ProtectSyncDeps,
  context: { actor: Actor; client: GoogleAdsClient; customerId: string; blocklist: readonly BlocklistEntry[] },
  campaign: SyncCampaign,
): Promise<CampaignCounts> {
  const { actor, client, customerId, blocklist } = context;
  const existing = await listIpCriteria(client, customerId, campaign.external_id);
  const owned = await selectOwnedExclusions(deps.db, actor.orgId, campaign.id);
  const plan = planCampaign({ blocklist, existing, owned: new Set(owned.map((row) => row.criterion_resource_name)) });
  const onCampaign = new Set(existing.map((criterion) => criterion.resourceName));
  // Ours the advertiser removed by hand: forgotten, and pushed again if still on the list.
  const gone = owned.map((row) => row.criterion_resource_name).filter((name) => !onCampaign.has(name));

  const operations = [
    ...plan.remove.map((criterion) => removeCriterion(criterion.resourceName)),
    ...plan.add.map((entry) => createIpBlock(customerId, campaign.external_id, entry.ip_block)),
  ];
  const accepted = operations.length > 0 ? await client.mutateCampaignCriteria(customerId, operations) : [];
  const created = accepted.slice(plan.remove.length);
  if (operations.length > 0 || gone.length > 0) {
    await deps.db.transaction(async (tx) => {
      await recordExclusions(tx, {
        orgId: actor.orgId,
        campaignId: campaign.id,
        forget: [...gone, ...plan.remove.map((criterion) => criterion.resourceName)],
        pushed: plan.add.map((entry, index) => ({ ip_block: entry.ip_block, criterion_resource_name: created[index]! })),
      });
      if (operations.length > 0) {
        await recordAudit(tx, actor, {
          action: 'sync',
          entity: 'campaign',
          entityId: campaign.id,
          detail: { provider: PROVIDER, external_id: campaign.external_id, added: plan.add.length, removed: plan.remove.length },
        });
      }
    });
  }
  return { added: plan.add.length, removed: plan.remove.length, kept: plan.kept, skipped: plan.skipped };
}
