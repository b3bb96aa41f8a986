/**
 * The cohort report (docs/reports.md, "Cohorts"): the installs of each install day and group,
 * followed day by day. The settings come from Postgres, the facts from the DuckDB mirror once it
 * has caught up; the API, the dashboard, the MCP tool and the CSV export all call cohortReport.
 */
import { selectAppNames, appExists } from '../../apps/apps.repo';
import { campaignExists, selectCampaignNames } from '../../campaigns/campaigns.repo';
import { validationError } from '../../http/errors';
import type { Clock } from '../../shared/ids';
import { selectReportingSettings } from '../../settings/settings.repo';
import type { PivotDeps } from '../pivot';
import { localDayNumber, zoneWindow } from '../reporting/zone-days';
import { shapeCohorts } from './cohort-rows';
import { cohortSql, spendFilters, spendSplits, type CohortFact } from './cohort-sql';
import { parseCohortQuery, type CohortQuery, type CohortQueryText, type CohortReport } from './cohorts.model';

export type CohortDeps = PivotDeps & { clock: Clock };

/** The report for a query as text: a 400 names every bad field, another organization's campaign or app reads as unknown. */
export async function cohortReport(deps: CohortDeps, orgId: string, text: CohortQueryText): Promise<CohortReport> {
  const query = parseCohortQuery(text);
  await checkOwned(deps, orgId, query);
  const settings = await selectReportingSettings(deps.db, orgId);
  const window = zoneWindow(settings.timezone, query.from, query.to, Math.max(...query.days));
  const { sql, params } = cohortSql(query, { orgId, currency: settings.currency, window });
  await deps.mirror.catchUp();
  const facts = await deps.mirror.query<CohortFact>(sql, params);
  const shaped = shapeCohorts(facts, {
    groupBy: query.groupBy,
    days: query.days,
    today: localDayNumber(settings.timezone, deps.clock().getTime()),
    rowSpend: spendSplits(query.groupBy) && spendFilters(query),
    totalSpend: spendFilters(query),
    labels: await labels(deps, orgId, query, facts),
  });
  return {
    from: query.from,
    to: query.to,
    timezone: settings.timezone,
    currency: settings.currency,
    group_by: query.groupBy,
    days: query.days,
    reattributions: query.includeReattributions ? 'include' : 'exclude',
    activity: query.activity,
    ...shaped,
  };
}

async function checkOwned(deps: CohortDeps, orgId: string, query: CohortQuery): Promise<void> {
  const fieldErrors: Record<string, string[]> = {};
  if (query.campaignId !== null && !(await campaignExists(deps.db, orgId, query.campaignId))) fieldErrors.campaign_id = ['unknown campaign'];
  if (query.appId !== null && !(await appExists(deps.db, orgId, query.appId))) fieldErrors.app_id = ['unknown app'];
  if (Object.keys(fieldErrors).length > 0) throw validationError(fieldErrors);
}

/** Names of the campaigns and apps the rows are grouped by. */
async function labels(deps: CohortDeps, orgId: string, query: CohortQuery, facts: readonly CohortFact[]) {
  const others = query.groupBy.filter((group) => group !== 'day');
  const idsOf = (group: 'campaign' | 'app') => {
    const index = others.indexOf(group);
    if (index < 0) return [];
    return [...new Set(facts.map((fact) => (index === 0 ? fact.k1 : fact.k2)).filter((id): id is string => id !== null))];
  };
  const [campaigns, apps] = await Promise.all([selectCampaignNames(deps.db, orgId, idsOf('campaign')), selectAppNames(deps.db, orgId, idsOf('app'))]);
  return { campaigns, apps };
}
