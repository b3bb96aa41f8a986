/**
 * One link's analytics (docs/dashboard.md, "Link page"): the link must be the organization's
 * (Postgres), the zone is its reporting zone, the numbers come from the DuckDB mirror once it has
 * caught up, in one set of statements run side by side.
 */
import { notFound } from '../../http/errors';
import { findLink } from '../../links/links.repo';
import { selectReportingSettings } from '../../settings/settings.repo';
import type { Clock } from '../../shared/ids';
import type { PivotDeps } from '../pivot';
import { dayOfNumber, localDayNumber, offsetSeconds, zoneWindow } from '../reporting/zone-days';
import { LINK_STATS_DAYS, LINK_STATS_HOURS, LINK_STATS_TOP, type LinkStatsAnswer, type LinkStatsBreakdown } from './link-stats.model';
import { selectClickGroups, selectOutcomes, selectRoutes, type ClickDimension, type ClickGroupRow } from './link-stats.repo';

export interface LinkStatsDeps extends PivotDeps {
  clock: Clock;
}

const HOUR_MS = 3_600_000;

/** Hours since 1970-01-01 00:00 of local time as its wall-clock text, YYYY-MM-DDTHH:00. */
const hourText = (hour: number) => `${new Date(hour * HOUR_MS).toISOString().slice(0, 13)}:00`;

export async function linkStats(deps: LinkStatsDeps, orgId: string, linkId: string): Promise<LinkStatsAnswer> {
  const [link, settings] = await Promise.all([findLink(deps.db, orgId, linkId), selectReportingSettings(deps.db, orgId)]);
  // Another organization's link reads exactly like an unknown one.
  if (!link) throw notFound('link not found');
  const zone = settings.timezone;
  const now = deps.clock().getTime();
  const today = localDayNumber(zone, now);
  const window = zoneWindow(zone, dayOfNumber(today - LINK_STATS_DAYS + 1), dayOfNumber(today));
  const currentHour = Math.floor((now / 1000 + offsetSeconds(zone, now)) / 3600);
  const input = { orgId, linkId, window, firstHour: currentHour - LINK_STATS_HOURS + 1 };

  await deps.mirror.catchUp();
  const [groups, routes, outcomes] = await Promise.all([selectClickGroups(deps.mirror, input), selectRoutes(deps.mirror, input), selectOutcomes(deps.mirror, input)]);

  const of = (dimension: ClickDimension) => groups.filter((row) => row.dimension === dimension);
  const countsBy = (rows: readonly ClickGroupRow[]) => new Map(rows.map((row) => [Number(row.key), row.clicks]));
  const clicksByDay = countsBy(of('day'));
  const clicksByHour = countsBy(of('hour'));
  const installsByDay = new Map<number, number>();
  const conversionsByDay = new Map<number, number>();
  const conversions = new Map<string, { event_name: string; currency: string | null; conversions: number; value: number }>();
  for (const row of outcomes) {
    if (row.event_name === null) {
      installsByDay.set(row.day, (installsByDay.get(row.day) ?? 0) + row.count);
      continue;
    }
    conversionsByDay.set(row.day, (conversionsByDay.get(row.day) ?? 0) + row.count);
    const key = JSON.stringify([row.event_name, row.currency]);
    const sum = conversions.get(key) ?? { event_name: row.event_name, currency: row.currency, conversions: 0, value: 0 };
    sum.conversions += row.count;
    sum.value += row.value;
    conversions.set(key, sum);
  }

  const days = Array.from({ length: LINK_STATS_DAYS }, (_, index) => {
    const day = window.fromDay + index;
    return { day: dayOfNumber(day), clicks: clicksByDay.get(day) ?? 0, installs: installsByDay.get(day) ?? 0, conversions: conversionsByDay.get(day) ?? 0 };
  });
  const hours = Array.from({ length: LINK_STATS_HOURS }, (_, index) => {
    const hour = input.firstHour + index;
    return { hour: hourText(hour), clicks: clicksByHour.get(hour) ?? 0 };
  });
  const sum = (values: readonly { clicks: number }[]) => values.reduce((total, value) => total + value.clicks, 0);
  return {
    link_id: link.id,
    timezone: zone,
    from: days[0]!.day,
    to: days[days.length - 1]!.day,
    totals: {
      clicks: sum(days),
      clicks_48h: sum(hours),
      installs: days.reduce((total, day) => total + day.installs, 0),
      conversions: days.reduce((total, day) => total + day.conversions, 0),
    },
    days,
    hours,
    countries: top(of('country')),
    os: top(of('os')),
    devices: top(of('device')),
    referrers: top(of('referrer')),
    landing_urls: top(of('landing')),
    routes,
    conversions: [...conversions.values()]
      .map((row) => ({ ...row, value: Math.round(row.value * 1e6) / 1e6 }))
      .sort((a, b) => b.conversions - a.conversions || a.event_name.localeCompare(b.event_name)),
  };
}

/** Most clicks first (ties by key, "not known" last), the first LINK_STATS_TOP kept and the rest summed. */
function top(rows: readonly ClickGroupRow[]): LinkStatsBreakdown {
  const sorted = [...rows].sort((a, b) => b.clicks - a.clicks || (a.key === null ? 1 : b.key === null ? -1 : a.key.localeCompare(b.key)));
  const kept = sorted.slice(0, LINK_STATS_TOP).map((row) => ({ key: row.key, clicks: row.clicks }));
  return { rows: kept, other: sorted.slice(LINK_STATS_TOP).reduce((total, row) => total + row.clicks, 0) };
}
