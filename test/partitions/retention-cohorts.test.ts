import { describe, expect, test } from 'bun:test';
import { cohortSql, type CohortFact } from '../../src/analytics/cohorts/cohort-sql';
import { parseCohortQuery } from '../../src/analytics/cohorts/cohorts.model';
import { zoneWindow } from '../../src/analytics/reporting/zone-days';
import { ensureDayPartitions } from '../../src/partitions/partitions.service';
import { runRetention } from '../../src/partitions/retention.service';
import { testMirror } from '../analytics/mirror/mirror.helpers';
import { backends } from '../support/db';
import { install, reportingOrg } from '../analytics/cohorts/support';
import { cohortQueries, cohortReports, cohortWorld, dayAt, storeEvent } from './retention-fixtures';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * docs/reports.md, "Cohorts past retention": the cohort report over installs whose events went
 * answers what it answered before they went, whichever partition they were in and however many
 * batches and passes removed them.
 */

/** Days events are stored on: the legacy partition (before tomorrow), day partitions ahead, the default partition (past them). */
const STORED_DAYS = [-6, -5, -4, -2, -1, 0, 2, 3, 5, 20, 21, 26];

const kept = (db: { query: <T>(sql: string, params?: unknown[]) => Promise<T[]> }, orgId: string) =>
  db.query<{ source: string; rows: number; count: number; value: number }>(
    `SELECT source, count(*)::int AS rows, sum(count)::int AS count, sum(value)::float8 AS value
       FROM retained_cohorts WHERE org_id = $1 GROUP BY source ORDER BY source`,
    [orgId],
  );
const eventCount = async (db: { query: <T>(sql: string, params?: unknown[]) => Promise<T[]> }, orgId: string) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [orgId]))[0]!.n;

for (const backend of backends()) {
  describe(`cohorts past retention (${backend.name})`, () => {
    test('the report stays whole through batches, whole partitions and repeated passes, per organization', async () => {
      const db = await backend.create();
      await ensureDayPartitions({ db, now: new Date(dayAt(1)) }, 12);
      // Los Angeles: a local day spans two UTC days, so its events are split between days of ids.
      const ours = await cohortWorld(db, { timezone: 'America/Los_Angeles', currency: 'USD', seed: 7, storedDays: STORED_DAYS });
      // Another organization with larger amounts on the same days: any of it in ours would show.
      const theirs = await cohortWorld(db, { timezone: 'UTC', currency: 'EUR', seed: 11, storedDays: STORED_DAYS, scale: 2 });
      const mirror = await testMirror({ db });
      const queries = { ours: cohortQueries(ours), theirs: cohortQueries(theirs) };
      const before = {
        ours: await cohortReports(db, mirror, ours.orgId, queries.ours),
        theirs: await cohortReports(db, mirror, theirs.orgId, queries.theirs),
      };
      const total = before.ours[0]!.total;
      expect(total.installs).toBe(7);
      expect(total.days.find((day) => day.day === 1)!.retained).toBeGreaterThan(0);
      expect(total.days.find((day) => day.day === 5)!.revenue).not.toBe(0);
      const whole = async () => {
        expect(await cohortReports(db, mirror, ours.orgId, queries.ours)).toEqual(before.ours);
        expect(await cohortReports(db, mirror, theirs.orgId, queries.theirs)).toEqual(before.theirs);
      };

      // Today, three days kept: the legacy partition loses days -6 to -4, five rows a batch.
      const stored = await eventCount(db, ours.orgId);
      const first = await runRetention({ db, now: new Date(dayAt(0)), policy: { events: 3 }, batchRows: 5 });
      expect(first[0]!.dropped).toEqual([]);
      expect(first[0]!.batches).toBeGreaterThan(3);
      expect(await eventCount(db, ours.orgId)).toBeLessThan(stored);
      expect((await kept(db, ours.orgId)).map((row) => row.source)).toEqual(['activity_any', 'activity_sessions', 'revenue']);
      await whole();

      // The same pass again finds nothing left before its cutoff, and adds nothing.
      const keptOnce = { ours: await kept(db, ours.orgId), theirs: await kept(db, theirs.orgId) };
      const again = await runRetention({ db, now: new Date(dayAt(0)), policy: { events: 3 }, batchRows: 5 });
      expect(again[0]).toMatchObject({ dropped: [], deleted: 0, batches: 0 });
      expect({ ours: await kept(db, ours.orgId), theirs: await kept(db, theirs.orgId) }).toEqual(keptOnce);
      await whole();

      // Four weeks on, two days kept: the legacy partition and the day partitions are dropped whole,
      // the default partition loses days 20 and 21 in batches; day 26 stays.
      const later = await runRetention({ db, now: new Date(dayAt(28)), policy: { events: 2 }, batchRows: 4 });
      expect(later[0]!.dropped).toContain('events_legacy');
      expect(later[0]!.dropped.length).toBeGreaterThan(10);
      expect(later[0]!.batches).toBeGreaterThan(1);
      const left = await eventCount(db, ours.orgId);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(ours.events / 4);
      await whole();
      await runRetention({ db, now: new Date(dayAt(28)), policy: { events: 2 }, batchRows: 4 });
      await whole();

      // The statement answers the same on Postgres, whose retained_cohorts the mirror copies.
      const query = parseCohortQuery({ from: before.ours[0]!.from, to: before.ours[0]!.to, group_by: 'campaign,day', days: '0,1,2,3,5' });
      const { sql, params } = cohortSql(query, { orgId: ours.orgId, currency: 'USD', window: zoneWindow('America/Los_Angeles', query.from, query.to, 5) });
      const sorted = (rows: CohortFact[]) => rows.map((row) => JSON.stringify(Object.values(row).map((v) => (v === null ? null : typeof v === 'string' ? v : Math.round(Number(v) * 1e6) / 1e6)))).sort();
      await mirror.catchUp();
      expect(sorted(await db.query<CohortFact>(sql, params))).toEqual(sorted(await mirror.query<CohortFact>(sql, params)));
    });

    test('an install is counted once per cohort day however its events are split, unless an event arrives after they all went', async () => {
      const db = await backend.create();
      const { orgId, appId } = await reportingOrg(db);
      const installedAt = dayAt(-12, 10);
      const installId = await install(db, { orgId, appId, at: new Date(installedAt).toISOString() });
      const [row] = await db.query<{ device_id_hash: string }>('SELECT device_id_hash FROM installs WHERE id = $1', [installId]);
      const session = (storedDay: number, hours: number) =>
        storeEvent(db, { orgId, appId, installId, device: row!.device_id_hash, name: 'session_start', occurredAt: installedAt + DAY + hours * HOUR, storedAt: dayAt(storedDay) });
      // Day 1: three sessions, stored on days -6 and -5 (one batch each, batchRows 1) and day -1.
      await session(-6, 1);
      await session(-5, 2);
      await session(-1, 3);
      const mirror = await testMirror({ db });
      const retained = async () => {
        const [report] = await cohortReports(db, mirror, orgId, [{ group_by: 'day', days: '1' }]);
        return report!.total.days[0]!.retained;
      };
      expect(await retained()).toBe(1);

      // Days -6 to -4 go, a row a batch: a session of day 1 is still stored, so nothing is kept yet.
      await runRetention({ db, now: new Date(dayAt(0)), policy: { events: 3 }, batchRows: 1 });
      expect(await kept(db, orgId)).toEqual([]);
      expect(await retained()).toBe(1);
      // The last one goes: the install is kept as active on day 1, once.
      await runRetention({ db, now: new Date(dayAt(0)), policy: { events: 0 }, batchRows: 1 });
      expect(await kept(db, orgId)).toEqual([
        { source: 'activity_any', rows: 1, count: 1, value: 0 },
        { source: 'activity_sessions', rows: 1, count: 1, value: 0 },
      ]);
      expect(await retained()).toBe(1);

      // The limit (docs/reports.md): a session of that day stored after they all went counts again.
      await session(1, 4);
      expect(await retained()).toBe(2);
    });
  });
}
