import { describe, expect, test } from 'bun:test';
import { riskScore } from '../../../src/tracking/risk/risk-signals';
import { testApp } from '../../support/app';
import { backends } from '../../support/db';
import { insertLink, orgWithKey } from '../../support/fixtures';
import { ingest, IPHONE } from '../../edge/support';

/** Every way a click comes in is scored by the same enrichment step. */
for (const backend of backends()) {
  describe(`risk scores of /c, /l and edge ingest clicks on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const riskOf = async (orgId: string) => {
      await t.services.clickPipeline.flush();
      return db.query<{ route: unknown; risk_score: number; risk_reasons: string[] }>(
        'SELECT route, risk_score, risk_reasons FROM clicks WHERE org_id = $1 ORDER BY created_at',
        [orgId],
      );
    };
    const visit = (path: string, ip: string, userAgent = IPHONE) =>
      t.request(`http://track.test.local${path}`, { headers: { 'x-forwarded-for': ip, 'user-agent': userAgent } });

    test('/c from a datacenter address by a script: datacenter_ip and unverified_bot', async () => {
      const org = await orgWithKey(db);
      const { slug } = await insertLink(db, org.orgId);
      expect((await visit(`/c/${slug}`, '5.9.1.1', 'python-requests/2.31')).status).toBe(302);
      expect(await riskOf(org.orgId)).toEqual([{ route: null, risk_score: riskScore(['datacenter_ip', 'unverified_bot']), risk_reasons: ['datacenter_ip', 'unverified_bot'] }]);
    });

    test('/l from a home address by a phone: no reasons', async () => {
      const org = await orgWithKey(db);
      const { slug } = await insertLink(db, org.orgId, { kind: 'smart' });
      expect((await visit(`/l/${slug}`, '73.162.1.1')).status).toBe(302);
      const [click] = await riskOf(org.orgId);
      expect(click).toMatchObject({ risk_score: 0, risk_reasons: [] });
      expect(click!.route).not.toBeNull();
    });

    test('edge ingest: the sixth click of one IP on one link within a minute is rapid_repeat', async () => {
      const org = await orgWithKey(db);
      const { slug } = await insertLink(db, org.orgId);
      const start = Date.now() - 30_000;
      const rows = Array.from({ length: 6 }, (_, i) => ({ slug, ip: '73.162.1.2', user_agent: IPHONE, ts: new Date(start + i * 1000).toISOString() }));
      expect((await ingest(t, rows)).status).toBe(200);
      const scored = await riskOf(org.orgId);
      expect(scored.map((click) => click.risk_reasons)).toEqual([[], [], [], [], [], ['rapid_repeat']]);
    });
  });
}
