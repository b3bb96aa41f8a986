import { describe, expect, test } from 'bun:test';
import { setClickRisks } from '../../../src/protect/scoring/click-risk.repo';
import { riskScore, type RiskSignal } from '../../../src/tracking/risk/risk-signals';
import { insertClick } from '../../support/clicks';
import { backends } from '../../support/db';
import { orgWithKey } from '../../support/fixtures';

for (const backend of backends()) {
  describe(`setClickRisks on ${backend.name}`, async () => {
    const db = await backend.create();
    const riskOf = async (id: string) =>
      (await db.query<{ risk_score: number; risk_reasons: string[] }>('SELECT risk_score, risk_reasons FROM clicks WHERE id = $1', [id]))[0];

    test('stores the scores and reasons of the organization’s clicks', async () => {
      const org = await orgWithKey(db);
      const first = await insertClick(db, { orgId: org.orgId });
      const second = await insertClick(db, { orgId: org.orgId });
      const reasons: RiskSignal[] = ['webdriver'];
      await db.transaction((tx) =>
        setClickRisks(tx, org.orgId, [
          { id: first, risk_score: riskScore(reasons), risk_reasons: reasons },
          { id: second, risk_score: 0, risk_reasons: [] },
        ]),
      );
      expect(await riskOf(first)).toEqual({ risk_score: riskScore(reasons), risk_reasons: reasons });
      expect(await riskOf(second)).toEqual({ risk_score: 0, risk_reasons: [] });
    });

    test('an empty list changes nothing', async () => {
      const org = await orgWithKey(db);
      const id = await insertClick(db, { orgId: org.orgId, riskReasons: ['datacenter_ip'] });
      await db.transaction((tx) => setClickRisks(tx, org.orgId, []));
      expect(await riskOf(id)).toEqual({ risk_score: riskScore(['datacenter_ip']), risk_reasons: ['datacenter_ip'] });
    });

    test('never changes another organization’s click', async () => {
      const owner = await orgWithKey(db, 'Owner');
      const other = await orgWithKey(db, 'Other');
      const id = await insertClick(db, { orgId: owner.orgId });
      await db.transaction((tx) => setClickRisks(tx, other.orgId, [{ id, risk_score: 90, risk_reasons: ['webdriver'] }]));
      expect(await riskOf(id)).toEqual({ risk_score: 0, risk_reasons: [] });
    });
  });
}
