/**
 * The cohort report's query and answer (docs/reports.md, "Cohorts"). The query arrives as text
 * (a URL's query, an MCP call, the CSV export's) and is read by parseCohortQuery, which names
 * every bad field in one 400.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PLATFORMS } from '../../apps/apps.model';
import { validationError } from '../../http/errors';
import { MAX_REPORT_DAYS, collectReportRange } from '../report-range';

export const COHORT_GROUPS = ['day', 'campaign', 'partner', 'country', 'platform', 'app', 'method'] as const;
export type CohortGroup = (typeof COHORT_GROUPS)[number];

export const DEFAULT_COHORT_DAYS = [0, 1, 3, 7, 14, 30] as const;
export const MAX_COHORT_DAY = 180;
/** A partner of an install without a campaign (docs/reports.md, "Media source"). */
export const ORGANIC = 'organic';

const oneOf = <const V extends readonly string[]>(values: V, description: string) =>
  Type.Optional(Type.Union(values.map((value) => Type.Literal(value)), { description, error: `must be one of ${values.join(', ')}` }));

/** The query's options as text; the report's own checks (parseCohortQuery) give each error its field. */
export const cohortOptionFields = {
  group_by: Type.Optional(Type.String({ maxLength: 64, description: `one or two of ${COHORT_GROUPS.join(', ')}, comma-separated (default day)` })),
  days: Type.Optional(Type.String({ maxLength: 1024, description: `cohort days to report, comma-separated, each 0 to ${MAX_COHORT_DAY} (default ${DEFAULT_COHORT_DAYS.join(',')})` })),
  campaign_id: Type.Optional(Type.String({ maxLength: 64, description: 'only installs of this campaign' })),
  partner: Type.Optional(Type.String({ maxLength: 64, description: `only installs of campaigns of this media source; ${ORGANIC} for installs without a campaign` })),
  app_id: Type.Optional(Type.String({ maxLength: 64, description: 'only installs of this app' })),
  country: Type.Optional(Type.String({ maxLength: 2, description: 'only installs from this country (ISO 3166-1 alpha-2)' })),
  platform: oneOf(PLATFORMS, 'only installs on this platform'),
  reattributions: Type.Optional(
    Type.Union([Type.Literal('include'), Type.Literal('exclude')], {
      description: 're-attributed installs: exclude (default; counted apart in `reattributions`) or include them in the cohorts',
      error: 'must be one of include, exclude',
    }),
  ),
  activity: Type.Optional(
    Type.Union([Type.Literal('any'), Type.Literal('sessions')], {
      description: 'what makes an install retained on a day: any SDK event (default) or a session_start',
      error: 'must be one of any, sessions',
    }),
  ),
};

export const cohortQueryFields = {
  from: Type.String({ maxLength: 10, description: "first install day, YYYY-MM-DD, in the organization's time zone, included" }),
  to: Type.String({ maxLength: 10, description: `last install day, YYYY-MM-DD, included; at most ${MAX_REPORT_DAYS} days from from` }),
  ...cohortOptionFields,
};

export const CohortQueryText = Type.Object(cohortQueryFields);
export type CohortQueryText = Static<typeof CohortQueryText>;

/** A checked query. Days are local days of the reporting zone; `days` in the order asked. */
export interface CohortQuery {
  from: string;
  to: string;
  groupBy: CohortGroup[];
  days: number[];
  campaignId: string | null;
  partner: string | null;
  appId: string | null;
  country: string | null;
  platform: string | null;
  includeReattributions: boolean;
  activity: 'any' | 'sessions';
}

/** The query, or one 400 naming every bad field. Whether a campaign or app is the organization's is the service's check. */
export function parseCohortQuery(text: CohortQueryText): CohortQuery {
  const fieldErrors: Record<string, string[]> = {};
  const range = collectReportRange(text, fieldErrors);
  const groupBy = parseGroups(text.group_by, fieldErrors);
  const days = parseDays(text.days, fieldErrors);
  const country = text.country === undefined ? null : text.country.toUpperCase();
  if (country !== null && !/^[A-Z]{2}$/.test(country)) fieldErrors.country = ['must be a two-letter country code (ISO 3166-1 alpha-2)'];
  for (const field of ['campaign_id', 'partner', 'app_id'] as const) {
    if (text[field] !== undefined && text[field]!.trim() === '') fieldErrors[field] = ['must not be empty'];
  }
  if (Object.keys(fieldErrors).length > 0 || !range) throw validationError(fieldErrors);
  return {
    from: range.from,
    to: range.to,
    groupBy,
    days,
    campaignId: text.campaign_id ?? null,
    partner: text.partner ?? null,
    appId: text.app_id ?? null,
    country,
    platform: text.platform ?? null,
    includeReattributions: text.reattributions === 'include',
    activity: text.activity ?? 'any',
  };
}

function parseGroups(raw: string | undefined, fieldErrors: Record<string, string[]>): CohortGroup[] {
  if (raw === undefined) return ['day'];
  const groups = raw.split(',').map((group) => group.trim());
  const known = new Set<string>(COHORT_GROUPS);
  if (groups.some((group) => !known.has(group))) fieldErrors.group_by = [`each must be one of ${COHORT_GROUPS.join(', ')}`];
  else if (groups.length > 2) fieldErrors.group_by = ['at most two groupings'];
  else if (groups.length === 2 && groups[0] === groups[1]) fieldErrors.group_by = ['two different groupings'];
  return groups as CohortGroup[];
}

function parseDays(raw: string | undefined, fieldErrors: Record<string, string[]>): number[] {
  if (raw === undefined) return [...DEFAULT_COHORT_DAYS];
  const days = raw.split(',').map((day) => day.trim());
  if (days.some((day) => !/^\d{1,3}$/.test(day) || Number(day) > MAX_COHORT_DAY)) {
    fieldErrors.days = [`each must be a whole number from 0 to ${MAX_COHORT_DAY}`];
  } else if (new Set(days.map(Number)).size !== days.length) fieldErrors.days = ['must not name a day twice'];
  return days.map(Number);
}

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()], { description: schema.description });
const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Amount = (description: string) => Type.Number({ description });

export const CohortDayBody = Type.Object({
  day: Type.Integer({ minimum: 0, maximum: MAX_COHORT_DAY, description: 'the cohort day: 0 is the install day' }),
  installs: Nullable(Count('installs of the cohorts that have reached this day')),
  retained: Nullable(Count('of those, installs active on this day')),
  retention: Nullable(Amount('retained / installs')),
  revenue: Nullable(Amount('revenue from the install day through this day, in the reporting currency')),
  arpu: Nullable(Amount('revenue / installs')),
  roas: Nullable(Amount('revenue / spend; null without spend')),
  uninstalled: Nullable(Count('installs marked uninstalled on or before this day')),
});
export type CohortDay = Static<typeof CohortDayBody>;

const Key = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }));
const cohortMeasures = {
  installs: Count('installs of the cohorts'),
  reattributions: Count('re-attributed installs among them (counted in installs only with reattributions=include)'),
  spend: Type.Union([Type.Number(), Type.Null()], { description: 'cost imports of these campaigns and install days; null where costs cannot be split so' }),
  cpi: Type.Union([Type.Number(), Type.Null()], { description: 'spend / installs' }),
  days: Type.Array(CohortDayBody, { description: 'the cohort days asked, in their order; a day no cohort of the row has reached is null in every field' }),
};

export const CohortRowBody = Type.Object({
  day: Key('install day, YYYY-MM-DD (group_by day)'),
  campaign_id: Key('campaign (group_by campaign); null for installs without one'),
  campaign: Key("the campaign's name"),
  partner: Key(`media source (group_by partner); ${ORGANIC} without a campaign`),
  country: Key('country code (group_by country)'),
  platform: Key('platform (group_by platform)'),
  app_id: Key('app (group_by app)'),
  app: Key("the app's name"),
  method: Key('attribution method (group_by method)'),
  ...cohortMeasures,
});
export type CohortRow = Static<typeof CohortRowBody>;

export const CohortTotalBody = Type.Object(cohortMeasures);
export type CohortTotal = Static<typeof CohortTotalBody>;

const Unconverted = (what: string) => Type.Record(Type.String(), Type.Number(), { description: `${what} in currencies without an exchange rate, by currency, never in the sums` });

export const CohortReportBody = Type.Object({
  from: Type.String(),
  to: Type.String(),
  timezone: Type.String(),
  currency: Type.String(),
  group_by: Type.Array(Type.String()),
  days: Type.Array(Type.Integer()),
  reattributions: Type.String(),
  activity: Type.String(),
  rows: Type.Array(CohortRowBody),
  total: CohortTotalBody,
  unconverted: Unconverted('revenue through the last day asked'),
  unconverted_spend: Unconverted('spend'),
});
export type CohortReport = Static<typeof CohortReportBody>;
