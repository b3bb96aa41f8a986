import { describe, expect, test } from 'bun:test';
import { cohortReport } from '../../../src/analytics/cohorts/cohorts.service';
import { backends } from '../../support/db';
import { testMirror } from '../mirror/mirror.helpers';
import { at, workedExample } from './support';

/** The worked example of docs/reports.md, "Cohorts": the same rows, the same numbers. */
const day = (n: number, fields: Record<string, number | null>): any => ({ day: n, ...fields });
const unreached = (n: number) => ({ day: n, installs: null, retained: null, retention: null, revenue: null, arpu: null, roas: null, uninstalled: null });

for (const backend of backends()) {
  describe(`the worked example on ${backend.name}`, async () => {
    const db = await backend.create();
    const mirror = await testMirror({ db });
    const { orgId, spring } = await workedExample(db);

    test('the report gives the documented table', async () => {
      const report = await cohortReport({ db, mirror, clock: at('2026-03-20T12:00:00Z') }, orgId, { from: '2026-03-10', to: '2026-03-10', group_by: 'campaign', days: '0,1,3,7,14' });
      expect(report).toEqual({
        from: '2026-03-10', to: '2026-03-10', timezone: 'Europe/Berlin', currency: 'EUR', group_by: ['campaign'], days: [0, 1, 3, 7, 14],
        reattributions: 'exclude', activity: 'any',
        rows: [
          {
            campaign_id: spring, campaign: 'Spring', installs: 2, reattributions: 0, spend: 30, cpi: 15,
            days: [
              day(0, { installs: 2, retained: 1, retention: 0.5, revenue: 0, arpu: 0, roas: 0, uninstalled: 0 }),
              day(1, { installs: 2, retained: 2, retention: 1, revenue: 5, arpu: 2.5, roas: 0.1667, uninstalled: 0 }),
              day(3, { installs: 2, retained: 1, retention: 0.5, revenue: 14, arpu: 7, roas: 0.4667, uninstalled: 0 }),
              day(7, { installs: 2, retained: 1, retention: 0.5, revenue: 14, arpu: 7, roas: 0.4667, uninstalled: 0 }),
              unreached(14),
            ],
          },
          {
            campaign_id: null, campaign: null, installs: 1, reattributions: 0, spend: 0, cpi: 0,
            days: [
              { ...day(0, { installs: 1, retained: 1, retention: 1, revenue: 0, arpu: null, uninstalled: 0 }), roas: null },
              { ...day(1, { installs: 1, retained: 0, retention: 0, revenue: 0, arpu: null, uninstalled: 0 }), roas: null },
              { ...day(3, { installs: 1, retained: 0, retention: 0, revenue: 0, arpu: null, uninstalled: 1 }), roas: null },
              { ...day(7, { installs: 1, retained: 0, retention: 0, revenue: 0, arpu: null, uninstalled: 1 }), roas: null },
              unreached(14),
            ],
          },
        ],
        total: {
          installs: 3, reattributions: 0, spend: 30, cpi: 10,
          days: [
            day(0, { installs: 3, retained: 2, retention: 0.6667, revenue: 0, arpu: null, roas: null, uninstalled: 0 }),
            day(1, { installs: 3, retained: 2, retention: 0.6667, revenue: 5, arpu: null, roas: null, uninstalled: 0 }),
            day(3, { installs: 3, retained: 1, retention: 0.3333, revenue: 14, arpu: null, roas: null, uninstalled: 1 }),
            day(7, { installs: 3, retained: 1, retention: 0.3333, revenue: 14, arpu: null, roas: null, uninstalled: 1 }),
            unreached(14),
          ],
        },
        unconverted: { GBP: 2 },
        unconverted_spend: {},
      });
    });
  });
}
