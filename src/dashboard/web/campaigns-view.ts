/**
 * What the campaigns page shows, read from the same services as the API: the campaigns, their
 * totals, the breakdown and the cohorts over the filters of the URL. A filter the reports refuse
 * is shown beside its field (the reports' own messages), and the reports it spoils are left out.
 */
import { BREAKDOWN_DIMENSIONS, parseBreakdownQuery, type BreakdownAnswer } from '../../analytics/breakdown/breakdown.model';
import { breakdownReport } from '../../analytics/breakdown/breakdown.service';
import { COHORT_GROUPS, type CohortReport } from '../../analytics/cohorts/cohorts.model';
import { cohortReport, type CohortDeps } from '../../analytics/cohorts/cohorts.service';
import { organizationPivot } from '../../analytics/pivot';
import { PLATFORMS } from '../../apps/apps.model';
import { listApps } from '../../apps/apps.service';
import { listCampaigns } from '../../campaigns/campaigns.service';
import { HttpError, type ValidationBody } from '../../http/errors';
import type { Db } from '../../db/db';
import { exportWindow } from '../export/export.model';
import type { Html } from './html';
import { campaignsPage, type CampaignFilters } from './pages/campaigns.page';

export const CAMPAIGNS_QUERY_FIELDS = ['from', 'to', 'campaign_id', 'partner', 'country', 'platform', 'group_by', 'cohort_by'] as const satisfies readonly (keyof CampaignFilters)[];
export type CampaignsQuery = Partial<Record<(typeof CAMPAIGNS_QUERY_FIELDS)[number], string>>;
/** The campaigns and apps the page lists and offers as filters: the newest, one page of the API. */
const LISTED = 1000;

/** The report's 400 as messages by field; anything else is thrown on. */
async function orErrors<T>(run: () => Promise<T>, errors: Record<string, string>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 400) throw error;
    const body = (error.body.error ?? {}) as Partial<ValidationBody>;
    for (const [name, messages] of Object.entries(body.fieldErrors ?? {})) errors[name] ??= messages.join('; ');
    if (Object.keys(body.fieldErrors ?? {}).length === 0) errors.from ??= String(typeof error.body.error === 'string' ? error.body.error : 'not valid');
    return null;
  }
}

export async function campaignsView(deps: CohortDeps & { db: Db }, orgId: string, query: CampaignsQuery): Promise<Html> {
  const now = deps.clock();
  let notice: string | null = null;
  let window: { from: string; to: string };
  try {
    window = exportWindow({ from: query.from || undefined, to: query.to || undefined }, now);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    window = exportWindow({}, now);
    notice = 'The window given is not valid; showing the default.';
  }
  const filters: CampaignFilters = {
    ...window,
    campaign_id: query.campaign_id ?? '',
    partner: query.partner ?? '',
    country: (query.country ?? '').trim().toUpperCase(),
    platform: query.platform ?? '',
    group_by: query.group_by || 'campaign',
    cohort_by: query.cohort_by || 'day',
  };
  const errors: Record<string, string> = {};
  // What the reports' query schemas check before their parsers do: the page reads them as text.
  if (filters.country !== '' && !/^[A-Z]{2}$/.test(filters.country)) errors.country = 'must be a two-letter country code (ISO 3166-1 alpha-2)';
  if (filters.platform !== '' && !(PLATFORMS as readonly string[]).includes(filters.platform)) errors.platform = `must be one of ${PLATFORMS.join(', ')}`;
  if (!(COHORT_GROUPS as readonly string[]).includes(filters.cohort_by)) errors.cohort_by = `must be one of ${COHORT_GROUPS.join(', ')}`;
  const [campaignPage, appPage] = await Promise.all([listCampaigns(deps, orgId, { limit: LISTED }), listApps(deps, orgId, { limit: LISTED })]);
  const campaigns = campaignPage.data;
  const apps = appPage.data;
  if (filters.campaign_id !== '' && !campaigns.some((campaign) => campaign.id === filters.campaign_id)) errors.campaign_id = 'unknown campaign';
  const shared = {
    campaign_id: filters.campaign_id || undefined,
    partner: filters.partner || undefined,
    country: filters.country || undefined,
    platform: (filters.platform || undefined) as (typeof PLATFORMS)[number] | undefined,
  };
  const valid = Object.keys(errors).length === 0;
  const breakdown = (groupBy: string, byCampaign: boolean): Promise<BreakdownAnswer | null> =>
    orErrors(() => breakdownReport(deps, orgId, parseBreakdownQuery({ ...window, ...shared, ...(byCampaign ? { campaign_id: undefined } : {}), group_by: groupBy })), errors);
  const [totals, detail, cohorts, pivot] = await Promise.all([
    valid ? breakdown('campaign', true) : null,
    valid ? breakdown(filters.group_by, false) : null,
    valid ? orErrors<CohortReport>(() => cohortReport(deps, orgId, { ...window, ...shared, group_by: filters.cohort_by }), errors) : null,
    organizationPivot(deps, { orgId, ...window }),
  ]);
  const partners = [...new Set(campaigns.flatMap((campaign) => (campaign.partner ? [campaign.partner] : [])))].sort();
  return campaignsPage({
    filters,
    errors,
    notice,
    campaigns,
    apps,
    totals,
    breakdown: detail,
    cohorts,
    pivot,
    partners: [...partners, 'organic'],
    platforms: PLATFORMS,
    dimensions: BREAKDOWN_DIMENSIONS,
    cohortGroups: COHORT_GROUPS,
  });
}
