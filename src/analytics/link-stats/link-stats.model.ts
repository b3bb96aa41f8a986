/**
 * One link's analytics (docs/dashboard.md, "Link page"): its clicks by day over the last 30 days
 * and by hour over the last 48 hours of the organization's reporting time zone, where they came
 * from and went, what they led to, and which smart-link rule took them.
 */
import { t } from 'elysia';

/** Days of the by-day series, today included. */
export const LINK_STATS_DAYS = 30;
/** Hours of the by-hour series, the current hour included. */
export const LINK_STATS_HOURS = 48;
/** Rows kept of each breakdown (country, OS, ...); the rest are summed into `other`. */
export const LINK_STATS_TOP = 10;

const Count = t.Integer({ minimum: 0 });

export const LinkStatsDay = t.Object({
  day: t.String({ description: 'local day, YYYY-MM-DD' }),
  clicks: Count,
  installs: Count,
  conversions: Count,
});
export type LinkStatsDay = typeof LinkStatsDay.static;

export const LinkStatsHour = t.Object({
  hour: t.String({ description: 'the local hour, YYYY-MM-DDTHH:00 (no offset: it is wall-clock time in `timezone`)' }),
  clicks: Count,
});
export type LinkStatsHour = typeof LinkStatsHour.static;

export const LinkStatsGroup = t.Object({
  /** null: the click did not say (no referrer, an unknown address, ...). */
  key: t.Union([t.String(), t.Null()]),
  clicks: Count,
});
export type LinkStatsGroup = typeof LinkStatsGroup.static;

const Breakdown = (what: string) =>
  t.Object({ rows: t.Array(LinkStatsGroup, { description: `the top ${LINK_STATS_TOP} ${what}, most clicks first` }), other: t.Integer({ minimum: 0, description: 'clicks of the rest' }) });
export type LinkStatsBreakdown = { rows: LinkStatsGroup[]; other: number };

/** A smart link's routing decision, as the click's `route` records it (docs/click-export.md, "route"). */
export const LinkStatsRoute = t.Object({
  rule_index: t.Union([t.Integer(), t.Null()]),
  rule_name: t.Union([t.String(), t.Null()]),
  action: t.Union([t.String(), t.Null()], { description: 'null: a visit whose visible url overrode the rules' }),
  variant_index: t.Union([t.Integer(), t.Null()]),
  clicks: Count,
});
export type LinkStatsRoute = typeof LinkStatsRoute.static;

export const LinkStatsConversion = t.Object({
  event_name: t.String(),
  currency: t.Union([t.String(), t.Null()]),
  conversions: Count,
  /** The sum of the values as sent, in `currency` (not converted). */
  value: t.Number(),
});
export type LinkStatsConversion = typeof LinkStatsConversion.static;

export const LinkStatsAnswer = t.Object({
  link_id: t.String(),
  timezone: t.String(),
  from: t.String({ description: 'first day of the by-day series and of every other figure' }),
  to: t.String({ description: 'today, in the reporting time zone' }),
  totals: t.Object({ clicks: Count, clicks_48h: Count, installs: Count, conversions: Count }),
  days: t.Array(LinkStatsDay, { description: `${LINK_STATS_DAYS} days, oldest first, days without clicks at 0` }),
  hours: t.Array(LinkStatsHour, { description: `${LINK_STATS_HOURS} hours, oldest first` }),
  countries: Breakdown('countries'),
  os: Breakdown('operating systems'),
  devices: Breakdown('device types'),
  referrers: Breakdown('referrer hosts'),
  landing_urls: Breakdown('landing URLs (without query and fragment)'),
  routes: t.Array(LinkStatsRoute, { description: "the smart link's decisions, most clicks first; empty for a tracking link" }),
  conversions: t.Array(LinkStatsConversion, { description: 'conversions of its clicks by event and currency' }),
});
export type LinkStatsAnswer = typeof LinkStatsAnswer.static;
