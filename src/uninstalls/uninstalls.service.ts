import { appExists } from '../apps/apps.repo';
import type { Db } from '../db/db';
import { fieldError } from '../http/errors';
import type { UninstallFilter } from './uninstalls.model';
import { uninstallsByCampaign, type CampaignUninstalls } from './uninstalls.repo';

/** Uninstalls per campaign for the organization; another organization's app reads as unknown. */
export async function listUninstallsByCampaign({ db }: { db: Db }, orgId: string, filter: UninstallFilter): Promise<CampaignUninstalls[]> {
  if (filter.appId !== null && !(await appExists(db, orgId, filter.appId))) throw fieldError('app_id', 'unknown app');
  return uninstallsByCampaign(db, orgId, filter);
}
