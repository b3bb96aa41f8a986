/**
 * Compiled by the package's own tsc (test/typecheck.test.ts), never run: the generated types reach
 * the client's methods, so a wrong field or a wrong type is a compile error.
 */
import type { ServerClient } from '../src/index.js';

export async function typed(svc: ServerClient): Promise<void> {
  const conversion = await svc.conversions.create({ click_id: 'click-0001', value: 5, currency: 'EUR' });
  const matched: boolean = conversion.matched;
  // @ts-expect-error value is a number
  await svc.conversions.create({ click_id: 'click-0001', value: 'five' });
  // @ts-expect-error a cost row needs a day and a spend
  await svc.costs.import([{ campaign_id: 'c' }]);
  const { data } = await svc.clicks.list({ limit: 10 });
  const nextHop: string | undefined = data[0]?.nextHopUrl;
  const report = await svc.reports.breakdown({ from: '2026-09-01', to: '2026-09-02', group_by: 'country' });
  // @ts-expect-error breakdown needs a from and a to
  await svc.reports.breakdown({ group_by: 'day' });
  // @ts-expect-error no such platform
  await svc.apps.create({ name: 'x', platform: 'symbian' });
  void [matched, nextHop, report.rows];
}
