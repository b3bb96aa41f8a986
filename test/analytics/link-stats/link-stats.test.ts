import { describe, expect, test } from 'bun:test';
import { LINK_STATS_DAYS, LINK_STATS_HOURS } from '../../../src/analytics/link-stats/link-stats.model';
import { linkStats } from '../../../src/analytics/link-stats/link-stats.service';
import { dayOfNumber, localDayNumber, zoneDayStart } from '../../../src/analytics/reporting/zone-days';
import type { Db } from '../../../src/db/db';
import { updateReportingSettings } from '../../../src/settings/settings.repo';
import { body, testApp } from '../../support/app';
import { insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { insertConversion, insertInstall } from '../../support/facts';
import { insertApp, insertLink } from '../../support/fixtures';
import { expectSecurityHeaders } from '../../support/http';
import { registerAccount } from '../../protect/support';

/**
 * One link's analytics from the DuckDB mirror, in the organization's reporting zone: Asia/Kolkata
 * (UTC+05:30), so a click just after local midnight falls on a different day than in UTC.
 */

const ZONE = 'Asia/Kolkata';
const HOUR_MS = 3_600_000;
const IOS = { osFamily: 'iOS', deviceType: 'mobile' } as const;
const ANDROID = { osFamily: 'Android', deviceType: 'tablet' } as const;

/** A link with clicks across the window and around it, installs and conversions of its clicks. */
async function seed(db: Db, orgId: string) {
  await updateReportingSettings(db, orgId, { timezone: ZONE, currency: 'USD' });
  const { appId } = await insertApp(db, orgId);
  const { linkId } = await insertLink(db, orgId, { kind: 'smart' });
  const { linkId: otherLinkId } = await insertLink(db, orgId);
  const now = Date.now();
  const today = localDayNumber(ZONE, now);
  // Ten minutes past local midnight three days ago: the day before in UTC.
  const justAfterMidnight = new Date(zoneDayStart(ZONE, today - 3) + 10 * 60_000);
  const rule0 = { rule_index: 0, rule_name: 'ios', action: 'store', variant_index: null, page: null };
  const variant1 = { rule_index: 1, rule_name: 'ab', action: 'variants', variant_index: 1, page: null };
  const fallback = { rule_index: null, rule_name: null, action: 'fallback', variant_index: null, page: null };
  const clicks = [
    { createdAt: new Date(now - HOUR_MS), country: 'US', ...IOS, referer: 'https://www.Google.com/search?q=shoes', route: rule0, nextHopUrl: 'https://apps.apple.com/app/id1?svc_click_id=a' },
    { createdAt: new Date(now - HOUR_MS), country: 'US', ...IOS, referer: 'https://t.co/x', route: rule0, nextHopUrl: 'https://apps.apple.com/app/id1?svc_click_id=b' },
    { createdAt: new Date(now - 30 * HOUR_MS), country: 'DE', ...ANDROID, route: variant1, nextHopUrl: 'https://shop.example.com/b?svc_click_id=c#top' },
    { createdAt: justAfterMidnight, country: 'DE', ...ANDROID, route: fallback, nextHopUrl: 'https://shop.example.com/?svc_click_id=d' },
    { createdAt: new Date(zoneDayStart(ZONE, today - 10) + 12 * HOUR_MS), country: null, osFamily: null, deviceType: null, device: 'c', route: fallback, nextHopUrl: 'https://shop.example.com/?svc_click_id=e' },
  ];
  const ids: string[] = [];
  for (const click of clicks) ids.push(await insertClick(db, { orgId, linkId, ...click }));
  // Not counted: a bot, a click older than the 30 days, another link's click.
  await insertClick(db, { orgId, linkId, createdAt: new Date(now - HOUR_MS), country: 'US', ...IOS, dropReason: 'bot' });
  const old = await insertClick(db, { orgId, linkId, createdAt: new Date(zoneDayStart(ZONE, today - LINK_STATS_DAYS) + HOUR_MS), country: 'FR' });
  const foreign = await insertClick(db, { orgId, linkId: otherLinkId, createdAt: new Date(now - HOUR_MS), country: 'GB' });
  // Installs of its clicks, one from the click older than the window (installed in it: counted).
  await insertInstall(db, { orgId, appId, clickId: ids[0], installedAt: new Date(now - 30 * 60_000) });
  await insertInstall(db, { orgId, appId, clickId: old, installedAt: justAfterMidnight });
  await insertInstall(db, { orgId, appId, clickId: foreign, installedAt: new Date(now - 30 * 60_000) });
  await insertConversion(db, { orgId, clickId: ids[0], createdAt: new Date(now - 20 * 60_000), event: 'purchase', value: 12.5, currency: 'EUR' });
  await insertConversion(db, { orgId, clickId: ids[1], createdAt: new Date(now - 20 * 60_000), event: 'purchase', value: 7.5, currency: 'EUR' });
  await insertConversion(db, { orgId, clickId: ids[2], createdAt: new Date(now - 20 * 60_000), event: 'signup' });
  await insertConversion(db, { orgId, clickId: foreign, createdAt: new Date(now - 20 * 60_000), event: 'purchase', value: 99, currency: 'EUR' });
  return { linkId, today, justAfterMidnight };
}

for (const backend of backends()) {
  describe(`link analytics on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { workers: false });
    const mine = await registerAccount(t);
    const theirs = await registerAccount(t);
    const seeded = await seed(db, mine.orgId);
    await seed(db, theirs.orgId);
    const path = (id: string) => `/api/dashboard/links/${id}/analytics`;

    describe('happy', () => {
      test('clicks by local day and hour, breakdowns, routes, installs and conversions of its own clicks', async () => {
        const stats = await linkStats(t.services, mine.orgId, seeded.linkId);
        expect(stats.timezone).toBe(ZONE);
        expect(stats.days).toHaveLength(LINK_STATS_DAYS);
        expect(stats.hours).toHaveLength(LINK_STATS_HOURS);
        expect(stats.to).toBe(dayOfNumber(seeded.today));
        expect(stats.from).toBe(dayOfNumber(seeded.today - LINK_STATS_DAYS + 1));
        const byDay = Object.fromEntries(stats.days.filter((day) => day.clicks + day.installs + day.conversions > 0).map((day) => [day.day, day]));
        const localDay = (at: number) => dayOfNumber(localDayNumber(ZONE, at));
        const now = Date.now();
        const expected: Record<string, { clicks: number; installs: number; conversions: number }> = {};
        const add = (day: string, field: 'clicks' | 'installs' | 'conversions', n = 1) => {
          expected[day] ??= { clicks: 0, installs: 0, conversions: 0 };
          expected[day][field] += n;
        };
        add(localDay(now - HOUR_MS), 'clicks', 2);
        add(localDay(now - 30 * HOUR_MS), 'clicks');
        add(dayOfNumber(seeded.today - 3), 'clicks');
        add(dayOfNumber(seeded.today - 10), 'clicks');
        add(localDay(now - 30 * 60_000), 'installs');
        add(dayOfNumber(seeded.today - 3), 'installs');
        add(localDay(now - 20 * 60_000), 'conversions', 3);
        expect(Object.fromEntries(Object.entries(byDay).map(([day, row]) => [day, { clicks: row.clicks, installs: row.installs, conversions: row.conversions }]))).toEqual(expected);
        // In UTC the click ten minutes past local midnight is on the day before.
        expect(seeded.justAfterMidnight.toISOString().slice(0, 10)).toBe(dayOfNumber(seeded.today - 4));
        expect(stats.totals).toEqual({ clicks: 5, clicks_48h: 3, installs: 2, conversions: 3 });

        const busyHours = stats.hours.filter((hour) => hour.clicks > 0);
        expect(busyHours.map((hour) => hour.clicks)).toEqual([1, 2]);
        // The hour is wall-clock time in the zone: UTC plus 05:30, floored to the hour.
        const localHour = (at: number) => `${new Date(at + 5.5 * HOUR_MS).toISOString().slice(0, 13)}:00`;
        expect(busyHours.map((hour) => hour.hour)).toEqual([localHour(now - 30 * HOUR_MS), localHour(now - HOUR_MS)]);

        expect(stats.countries).toEqual({ rows: [{ key: 'DE', clicks: 2 }, { key: 'US', clicks: 2 }, { key: null, clicks: 1 }], other: 0 });
        expect(stats.os.rows).toEqual([{ key: 'Android', clicks: 2 }, { key: 'iOS', clicks: 2 }, { key: null, clicks: 1 }]);
        // No user agent: the device comes from the ValueTrack parameter (c: desktop), as in the breakdown report.
        expect(stats.devices.rows).toEqual([{ key: 'mobile', clicks: 2 }, { key: 'tablet', clicks: 2 }, { key: 'desktop', clicks: 1 }]);
        expect(stats.referrers.rows).toEqual([{ key: null, clicks: 3 }, { key: 't.co', clicks: 1 }, { key: 'www.google.com', clicks: 1 }]);
        expect(stats.landing_urls.rows).toEqual([
          { key: 'https://apps.apple.com/app/id1', clicks: 2 },
          { key: 'https://shop.example.com/', clicks: 2 },
          { key: 'https://shop.example.com/b', clicks: 1 },
        ]);
        expect(stats.routes).toEqual([
          { rule_index: 0, rule_name: 'ios', action: 'store', variant_index: null, clicks: 2 },
          { rule_index: null, rule_name: null, action: 'fallback', variant_index: null, clicks: 2 },
          { rule_index: 1, rule_name: 'ab', action: 'variants', variant_index: 1, clicks: 1 },
        ]);
        expect(stats.conversions).toEqual([
          { event_name: 'purchase', currency: 'EUR', conversions: 2, value: 20 },
          { event_name: 'signup', currency: null, conversions: 1, value: 0 },
        ]);
      });

      test('the session route answers the same, with the security headers', async () => {
        const res = await t.request(path(seeded.linkId), { headers: { cookie: mine.cookie } });
        expect(res.status).toBe(200);
        expectSecurityHeaders(res);
        const answer = await body(res);
        expect(answer.totals).toEqual({ clicks: 5, clicks_48h: 3, installs: 2, conversions: 3 });
        expect(answer.link_id).toBe(seeded.linkId);
      });

      test('a link without clicks: every day and hour at zero, empty breakdowns', async () => {
        const { linkId } = await insertLink(db, mine.orgId);
        const stats = await linkStats(t.services, mine.orgId, linkId);
        expect(stats.days.every((day) => day.clicks === 0 && day.installs === 0 && day.conversions === 0)).toBe(true);
        expect(stats.hours.every((hour) => hour.clicks === 0)).toBe(true);
        expect([stats.countries, stats.referrers]).toEqual([{ rows: [], other: 0 }, { rows: [], other: 0 }]);
        expect([stats.routes, stats.conversions]).toEqual([[], []]);
      });

      test('past ten countries the rest are summed in other', async () => {
        const { linkId } = await insertLink(db, mine.orgId);
        const countries = ['AT', 'BE', 'CH', 'DK', 'ES', 'FI', 'GR', 'HU', 'IE', 'IT', 'JP', 'KE'];
        for (const [index, country] of countries.entries()) {
          for (let n = 0; n <= index; n++) await insertClick(db, { orgId: mine.orgId, linkId, country, createdAt: new Date(Date.now() - HOUR_MS) });
        }
        const stats = await linkStats(t.services, mine.orgId, linkId);
        expect(stats.countries.rows.map((row) => row.key)).toEqual([...countries].reverse().slice(0, 10));
        expect(stats.countries.other).toBe(1 + 2);
      });
    });

    describe('error', () => {
      test('an unknown link: 404 in the spec shape; an id too long: 400', async () => {
        const res = await t.request(path('01UNKNOWNLINK'), { headers: { cookie: mine.cookie } });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'link not found' });
        const long = await t.request(path('x'.repeat(65)), { headers: { cookie: mine.cookie } });
        expect(long.status).toBe(400);
        expect((await body(long)).error.fieldErrors.id).toBeDefined();
      });

      test('no session or a forged one: 401', async () => {
        expect((await t.request(path(seeded.linkId))).status).toBe(401);
        expect((await t.request(path(seeded.linkId), { headers: { cookie: 'svc_session=forged.token.value' } })).status).toBe(401);
      });
    });

    describe('security', () => {
      test("another organization's link reads as unknown, through the route and the service", async () => {
        const res = await t.request(path(seeded.linkId), { headers: { cookie: theirs.cookie } });
        expect(res.status).toBe(404);
        expect(await body(res)).toEqual({ error: 'link not found' });
        await expect(linkStats(t.services, theirs.orgId, seeded.linkId)).rejects.toMatchObject({ status: 404 });
      });
    });
  });
}
