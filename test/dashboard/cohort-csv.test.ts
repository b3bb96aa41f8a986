import { describe, expect, test } from 'bun:test';
import { issueApiKey } from '../../src/auth/api-keys';
import { COHORT_DAY_COLUMNS } from '../../src/dashboard/export/cohort-csv';
import { body, testApp } from '../support/app';
import { csvRowsOf } from '../support/csv';
import { backends } from '../support/db';
import { registerAccount } from '../protect/support';
import { workedExample } from '../analytics/cohorts/support';

const QUERY = 'from=2026-03-09&to=2026-03-10&group_by=campaign,day&days=0,1,3,7,14';
const cell = (value: unknown) => (value === null || value === undefined ? '' : String(value));

for (const backend of backends()) {
  describe(`GET /api/dashboard/export?type=cohorts on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { MIRROR_INTERVAL_MS: '0' }, { workers: false });
    const me = await registerAccount(t);
    const them = await registerAccount(t);
    await workedExample(db, me.orgId);
    const key = await issueApiKey(db, { orgId: me.orgId, name: 'csv' });

    test("one record per row of the API's report, the same numbers, d{N}_ columns per cohort day", async () => {
      const res = await t.request(`/api/dashboard/export?type=cohorts&${QUERY}`, { headers: { cookie: me.cookie } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="cohorts-2026-03-09-2026-03-10.csv"');
      const records = await csvRowsOf(res);
      const api = await body(await t.request(`/api/v1/reports/cohorts?${QUERY}`, { headers: { authorization: `Bearer ${key.api_key}` } }));
      expect(api.rows).toHaveLength(2);
      expect(Object.keys(records[0]!)).toEqual([
        'campaign_id', 'campaign', 'day', 'installs', 'reattributions', 'spend', 'cpi',
        ...[0, 1, 3, 7, 14].flatMap((n) => COHORT_DAY_COLUMNS.map((column) => `d${n}_${column}`)),
      ]);
      expect(records).toEqual(
        api.rows.map((row: any) => ({
          campaign_id: cell(row.campaign_id), campaign: cell(row.campaign), day: row.day,
          installs: cell(row.installs), reattributions: cell(row.reattributions), spend: cell(row.spend), cpi: cell(row.cpi),
          ...Object.fromEntries(row.days.flatMap((entry: any) => COHORT_DAY_COLUMNS.map((column) => [`d${entry.day}_${column}`, cell(entry[column])]))),
        })),
      );
      expect(records[0]).toMatchObject({ campaign: 'Spring', d3_revenue: '14', d3_roas: '0.4667', d14_installs: '2' });
    });

    test('a bad cohort option is a 400 naming it; another organization exports no row of this one', async () => {
      const bad = await t.request(`/api/dashboard/export?type=cohorts&${QUERY}&days=0,200`, { headers: { cookie: me.cookie } });
      expect(bad.status).toBe(400);
      expect(Object.keys((await body(bad)).error.fieldErrors)).toEqual(['days']);
      expect((await t.request(`/api/dashboard/export?type=cohorts&${QUERY}`)).status).toBe(401);
      const theirs = await csvRowsOf(await t.request(`/api/dashboard/export?type=cohorts&${QUERY}`, { headers: { cookie: them.cookie } }));
      expect(theirs).toEqual([]);
    });
  });
}
