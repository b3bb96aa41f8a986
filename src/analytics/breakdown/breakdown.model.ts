/**
 * The breakdown report's query and answer (docs/reports.md, "Breakdowns"): one table over a day
 * range of the organization's zone, grouped by one or two dimensions, with the same filters as
 * the cohorts. The API, the dashboard and the MCP tool read the query through parseBreakdownQuery.
 */
import { t } from 'elysia';
import { PLATFORMS } from '../../apps/apps.model';
import { validationError } from '../../http/errors';
import { collectReportRange } from '../report-range';

export const BREAKDOWN_DIMENSIONS = ['day', 'campaign', 'partner', 'link', 'country', 'region', 'os', 'device', 'platform', 'network'] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

const GROUP_BY_ERROR = `must be one or two of ${BREAKDOWN_DIMENSIONS.join(', ')}, comma-separated, each once`;
const Id = (what: string) => t.Optional(t.String({ minLength: 1, maxLength: 64, description: `only the rows of this ${what}`, error: `must be ${what === 'app' ? 'an app' : 'a campaign'} id` }));

/** `from`, `to` and `group_by` arrive as text and are checked by parseBreakdownQuery, so each error names its field. */
export const BreakdownQuery = t.Object({
  from: t.String({ maxLength: 10, description: 'first day, YYYY-MM-DD, in the organization\'s reporting time zone' }),
  to: t.String({ maxLength: 10, description: 'last day, YYYY-MM-DD, included; at most 366 days from `from`' }),
  group_by: t.Optional(t.String({ maxLength: 64, description: `one or two of ${BREAKDOWN_DIMENSIONS.join(', ')}, comma-separated (default day)` })),
  campaign_id: Id('campaign'),
  partner: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "only this media source (a campaign's partner; `organic`: installs without a campaign)", error: 'must be 1 to 64 characters' })),
  app_id: Id('app'),
  country: t.Optional(t.String({ pattern: '^[A-Za-z]{2}$', description: 'only this country (ISO 3166-1 alpha-2)', error: 'must be a two-letter country code' })),
  platform: t.Optional(t.Union(PLATFORMS.map((platform) => t.Literal(platform)), { description: 'only this platform', error: `must be one of ${PLATFORMS.join(', ')}` })),
});
export type BreakdownQuery = typeof BreakdownQuery.static;

export interface BreakdownFilters {
  campaignId?: string;
  partner?: string;
  appId?: string;
  /** Upper case. */
  country?: string;
  platform?: string;
}

export interface BreakdownRequest {
  from: string;
  to: string;
  groupBy: BreakdownDimension[];
  filters: BreakdownFilters;
}

/** The checked request, or one 400 naming every bad field. */
export function parseBreakdownQuery(query: BreakdownQuery): BreakdownRequest {
  const fieldErrors: Record<string, string[]> = {};
  const range = collectReportRange(query, fieldErrors);
  const groupBy = parseGroupBy(query.group_by);
  if (!groupBy) fieldErrors.group_by = [GROUP_BY_ERROR];
  if (Object.keys(fieldErrors).length > 0 || !range || !groupBy) throw validationError(fieldErrors);
  const filters: BreakdownFilters = {};
  if (query.campaign_id !== undefined) filters.campaignId = query.campaign_id;
  if (query.partner !== undefined) filters.partner = query.partner;
  if (query.app_id !== undefined) filters.appId = query.app_id;
  if (query.country !== undefined) filters.country = query.country.toUpperCase();
  if (query.platform !== undefined) filters.platform = query.platform;
  return { from: range.from, to: range.to, groupBy, filters };
}

function parseGroupBy(text: string | undefined): BreakdownDimension[] | undefined {
  if (text === undefined) return ['day'];
  const names = text.split(',').map((name) => name.trim());
  const known = new Set<string>(BREAKDOWN_DIMENSIONS);
  if (names.length < 1 || names.length > 2 || names.some((name) => !known.has(name)) || new Set(names).size !== names.length) return undefined;
  return names as BreakdownDimension[];
}

const Nullable = (schema: Parameters<typeof t.Nullable>[0]) => t.Optional(t.Nullable(schema));
const Count = (description: string) => t.Integer({ description });
const Ratio = (description: string) => t.Nullable(t.Number({ description }));
const Unconverted = (what: string) => t.Record(t.String(), t.Number(), { description: `${what} in a currency with no exchange rate on or before its day, by currency, left out of the converted sums` });

const metrics = {
  clicks: Count('valid clicks: not dropped by an ingestion step (bots, invalid, blocked)'),
  invalid_clicks: Count("clicks scored invalid: risk score at least the organization's invalid_threshold, verified crawlers excepted, dropped or not"),
  installs: Count('installs, by the day they were installed'),
  conversions: Count('conversions recorded'),
  revenue: t.Number({ description: 'conversion values, SDK purchases and ad revenue, store payments less refunds, in the reporting currency' }),
  spend: t.Number({ description: 'cost imports, in the reporting currency' }),
  cpi: Ratio('spend / installs; null without installs'),
  roas: Ratio('revenue / spend; null without spend'),
  cvr: Ratio('installs / clicks; null without clicks'),
  unconverted: Unconverted('revenue'),
  unconverted_spend: Unconverted('spend'),
};

/** A row: the keys of the grouped dimensions (null: none or unknown for that source), with labels for campaigns and links. */
export const BreakdownRow = t.Object({
  day: t.Optional(t.String({ description: 'YYYY-MM-DD in the reporting time zone' })),
  campaign_id: Nullable(t.String()),
  campaign: Nullable(t.String({ description: "the campaign's name" })),
  partner: Nullable(t.String({ description: "the campaign's media source; organic for installs without a campaign" })),
  link_id: Nullable(t.String()),
  link: Nullable(t.String({ description: "the link's slug" })),
  country: Nullable(t.String()),
  region: Nullable(t.String()),
  os: Nullable(t.String({ description: "the OS family of the click's user agent; of an install, its platform's" })),
  device: Nullable(t.String({ description: 'mobile, tablet, desktop ... from the user agent, else the ad platform\'s device parameter' })),
  platform: Nullable(t.String()),
  network: Nullable(t.String({ description: "the ad platform's network parameter of the click" })),
  ...metrics,
});

export const BreakdownTotal = t.Object(metrics);

export const BreakdownAnswer = t.Object({
  from: t.String(),
  to: t.String(),
  timezone: t.String(),
  currency: t.String(),
  group_by: t.Array(t.String()),
  rows: t.Array(BreakdownRow),
  total: BreakdownTotal,
  unconverted: Unconverted('revenue'),
  unconverted_spend: Unconverted('spend'),
});

export type BreakdownRow = typeof BreakdownRow.static;
export type BreakdownTotal = typeof BreakdownTotal.static;
export type BreakdownAnswer = typeof BreakdownAnswer.static;
