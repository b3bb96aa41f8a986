import { t } from 'elysia';
import { validationError } from '../../http/errors';
import { parseDay } from '../../shared/timestamp';
import { cohortOptionFields } from '../../analytics/cohorts/cohorts.model';

export const EXPORT_TYPES = ['clicks', 'conversions', 'pivot', 'cohorts', 'breakdown'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

/** `from` and `to` are checked by exportWindow, so each error says what is allowed. */
export const ExportQuery = t.Object({
  type: t.Union(EXPORT_TYPES.map((type) => t.Literal(type)), { error: "must be 'clicks', 'conversions', 'pivot', 'cohorts' or 'breakdown'" }),
  from: t.Optional(t.String({ maxLength: 10, description: 'first day, YYYY-MM-DD (UTC); default 29 days before `to`' })),
  to: t.Optional(t.String({ maxLength: 10, description: 'last day, YYYY-MM-DD (UTC), included; default today' })),
  // type=cohorts: the cohort report's options (its install days are from and to); type=breakdown
  // reads group_by, campaign_id, partner, app_id, country and platform of them as the breakdown does.
  ...cohortOptionFields,
});
export type ExportQuery = typeof ExportQuery.static;

export const DEFAULT_EXPORT_DAYS = 30;
/** The longest window: `to` at most this many days after `from`. */
export const MAX_EXPORT_SPAN_DAYS = 366;
const DAY_MS = 86_400_000;

const dayText = (time: number) => new Date(time).toISOString().slice(0, 10);
const dayTime = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** The window's first and last day (UTC, both included), or one 400 naming every bad field. */
export function exportWindow(query: Pick<ExportQuery, 'from' | 'to'>, now: Date): { from: string; to: string } {
  const fieldErrors: Record<string, string[]> = {};
  const read = (field: 'from' | 'to') => {
    if (query[field] === undefined) return undefined;
    const parsed = parseDay(query[field]);
    if ('error' in parsed) fieldErrors[field] = ['must be a date YYYY-MM-DD'];
    return 'value' in parsed ? parsed.value : undefined;
  };
  const given = { from: read('from'), to: read('to') };
  if (Object.keys(fieldErrors).length > 0) throw validationError(fieldErrors);
  const to = given.to ?? dayText(now.getTime());
  const from = given.from ?? dayText(dayTime(to) - (DEFAULT_EXPORT_DAYS - 1) * DAY_MS);
  const span = (dayTime(to) - dayTime(from)) / DAY_MS;
  if (span < 0) throw validationError({ to: ['must be on or after from'] });
  if (span > MAX_EXPORT_SPAN_DAYS) throw validationError({ to: [`must be at most ${MAX_EXPORT_SPAN_DAYS} days after from`] });
  return { from, to };
}

/** The columns of each CSV, in order (docs/dashboard.md, "Exports"). */
export const CLICK_EXPORT_COLUMNS = [
  'id', 'createdAt', 'gclid', 'gbraid', 'wbraid', 'campaignExtId', 'adGroupExtId', 'creativeId', 'keyword', 'matchType', 'network',
  'device', 'nextHopUrl', 'transparentParamPresent', 'forceTransparent', 'isBot', 'latencyMs', 'dropReason', 'riskScore', 'riskReasons', 'route',
  // Past the read model's fields: what the breakdowns group by (docs/dashboard.md, "Exports").
  'country', 'region', 'os', 'device_type', 'link', 'campaignId',
] as const;
export const CONVERSION_EXPORT_COLUMNS = ['id', 'createdAt', 'clickId', 'campaignId', 'eventName', 'value', 'currency', 'orderId', 'gclid', 'source'] as const;
export const PIVOT_EXPORT_COLUMNS = ['day', 'campaign_id', 'campaign', 'clicks', 'installs', 'conversions', 'revenue', 'spend', 'cpi', 'roas'] as const;
