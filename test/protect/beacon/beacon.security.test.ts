import '../../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { FINGERPRINT_REUSE } from '../../../src/tracking/risk/risk-signals';
import { body, testApp } from '../../support/app';
import { backends } from '../../support/db';
import { orgWithKey } from '../../support/fixtures';
import { awayFromWindowEnd } from '../../support/rate-window';
import { CLEAN_BEACON, clickRisk, riskClick, sendBeacon, storedBeacon } from '../support';

for (const backend of backends()) {
  describe(`beacon fingerprints and organizations on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    /** A click of `orgId` from `ip`, and its clean beacon carrying `fingerprint`. */
    const beaconFrom = async (orgId: string, ip: string, fingerprint: string, extra: { isBot?: boolean } = {}) => {
      const clickId = await riskClick(db, { orgId, ip, ...extra });
      expect((await sendBeacon(t, { click_id: clickId, fingerprint, ...CLEAN_BEACON })).status).toBe(200);
      return clickId;
    };
    const reasonsOf = async (ids: string[]) => Promise.all(ids.map(async (id) => (await clickRisk(db, id)).risk_reasons));

    test(`fingerprint_reuse: from the ${FINGERPRINT_REUSE.ips}rd IP on, every click of the fingerprint has it`, async () => {
      const { orgId } = await orgWithKey(db);
      const first = await beaconFrom(orgId, '198.51.100.1', 'fp-reuse');
      const second = await beaconFrom(orgId, '198.51.100.2', 'fp-reuse');
      expect(await reasonsOf([first, second])).toEqual([[], []]);
      const third = await beaconFrom(orgId, '198.51.100.3', 'fp-reuse');
      for (const id of [first, second, third]) expect(await clickRisk(db, id)).toEqual({ risk_score: 35, risk_reasons: ['fingerprint_reuse'] });
      // A later click of the fingerprint has it at once; an unrelated fingerprint does not.
      const fourth = await beaconFrom(orgId, '198.51.100.1', 'fp-reuse');
      const unrelated = await beaconFrom(orgId, '198.51.100.4', 'fp-other');
      expect(await reasonsOf([fourth, unrelated])).toEqual([['fingerprint_reuse'], []]);
    });

    test('fingerprint_reuse adds to what the clicks already have, and stays when a later beacon has no fingerprint', async () => {
      const { orgId } = await orgWithKey(db);
      const risky = await riskClick(db, { orgId, ip: '198.51.100.11', reasons: ['datacenter_ip'] });
      await sendBeacon(t, { click_id: risky, fingerprint: 'fp-add', ...CLEAN_BEACON, scroll: 0 });
      await beaconFrom(orgId, '198.51.100.12', 'fp-add');
      await beaconFrom(orgId, '198.51.100.13', 'fp-add');
      expect(await clickRisk(db, risky)).toEqual({ risk_score: 85, risk_reasons: ['datacenter_ip', 'no_scroll', 'fingerprint_reuse'] });
      await sendBeacon(t, { click_id: risky, scroll: 80 });
      expect(await clickRisk(db, risky)).toEqual({ risk_score: 75, risk_reasons: ['datacenter_ip', 'fingerprint_reuse'] });
    });

    test('one IP many times, beacons older than the window and verified crawlers do not count', async () => {
      const { orgId } = await orgWithKey(db);
      const sameIp = [await beaconFrom(orgId, '198.51.100.21', 'fp-same'), await beaconFrom(orgId, '198.51.100.21', 'fp-same'), await beaconFrom(orgId, '198.51.100.22', 'fp-same')];
      expect(await reasonsOf(sameIp)).toEqual([[], [], []]);

      const old = await beaconFrom(orgId, '198.51.100.31', 'fp-old');
      await db.query("UPDATE click_beacons SET updated_at = now() - interval '25 hours' WHERE click_id = $1", [old]);
      const recent = [await beaconFrom(orgId, '198.51.100.32', 'fp-old'), await beaconFrom(orgId, '198.51.100.33', 'fp-old')];
      expect(await reasonsOf([old, ...recent])).toEqual([[], [], []]);

      const crawler = await beaconFrom(orgId, '66.249.66.1', 'fp-bot', { isBot: true });
      const humans = [await beaconFrom(orgId, '198.51.100.41', 'fp-bot'), await beaconFrom(orgId, '198.51.100.42', 'fp-bot')];
      expect(await reasonsOf([crawler, ...humans])).toEqual([[], [], []]);
    });

    test('beacons of one fingerprint at the same moment all end flagged, none failing', async () => {
      const { orgId } = await orgWithKey(db);
      const clicks = await Promise.all(Array.from({ length: 8 }, (_, i) => riskClick(db, { orgId, ip: `198.51.100.${70 + i}` })));
      const answers = await Promise.all(clicks.map((clickId) => sendBeacon(t, { click_id: clickId, fingerprint: 'fp-burst', ...CLEAN_BEACON })));
      expect(answers.map((res) => res.status)).toEqual(clicks.map(() => 200));
      expect(await reasonsOf(clicks)).toEqual(clicks.map(() => ['fingerprint_reuse']));
    });

    test('security: fingerprints never cross organizations', async () => {
      const owner = await orgWithKey(db, 'Owner');
      const other = await orgWithKey(db, 'Other');
      // Four IPs in all with one fingerprint, but two per organization.
      const ownerClicks = [await beaconFrom(owner.orgId, '198.51.100.51', 'fp-shared'), await beaconFrom(owner.orgId, '198.51.100.52', 'fp-shared')];
      const otherClicks = [await beaconFrom(other.orgId, '198.51.100.53', 'fp-shared'), await beaconFrom(other.orgId, '198.51.100.54', 'fp-shared')];
      expect(await reasonsOf([...ownerClicks, ...otherClicks])).toEqual([[], [], [], []]);
      // The other organization reaching three flags its own clicks only.
      const third = await beaconFrom(other.orgId, '198.51.100.55', 'fp-shared');
      expect(await reasonsOf([...otherClicks, third])).toEqual([['fingerprint_reuse'], ['fingerprint_reuse'], ['fingerprint_reuse']]);
      expect(await reasonsOf(ownerClicks)).toEqual([[], []]);
      for (const id of ownerClicks) expect((await storedBeacon(db, id))?.org_id).toBe(owner.orgId);
    });

    test("security: a beacon naming another organization's click changes that click only", async () => {
      const owner = await orgWithKey(db, 'Owner');
      const other = await orgWithKey(db, 'Other');
      const target = await riskClick(db, { orgId: other.orgId, ip: '198.51.100.61' });
      const mine = await riskClick(db, { orgId: owner.orgId, ip: '198.51.100.61' });
      expect((await sendBeacon(t, { click_id: target, webdriver: true, fingerprint: 'fp-x' })).status).toBe(200);
      expect(await storedBeacon(db, target)).toMatchObject({ org_id: other.orgId });
      expect(await storedBeacon(db, mine)).toBeUndefined();
      expect((await clickRisk(db, mine)).risk_reasons).toEqual([]);
    });

    test('any body answers 200, 400, 404 or 413, never 500 (property)', async () => {
      const clickId = await riskClick(db, { orgId: (await orgWithKey(db)).orgId });
      const field = fc.oneof(fc.string({ maxLength: 80 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
      const beacon = fc.record(
        {
          click_id: fc.oneof(fc.constant(clickId), fc.string({ maxLength: 70 })),
          fingerprint: field,
          screen: fc.oneof(fc.stringMatching(/^\d{1,6}x\d{1,6}$/), field),
          timezone: fc.oneof(fc.constantFrom('Europe/Zurich', 'Asia/Calcutta', 'Etc/GMT+5', 'Nowhere/City'), field),
          languages: fc.oneof(fc.constantFrom('de-CH,de', 'x-klingon', '*', 'en;q=0.9'), field),
          webdriver: field,
          touch: field,
          dwell_ms: field,
          scroll: fc.oneof(fc.integer({ min: -5, max: 105 }), field),
        },
        { requiredKeys: [] },
      );
      const raw = fc.oneof(beacon.map((value) => JSON.stringify(value)), fc.string({ maxLength: 200 }), fc.json());
      await fc.assert(
        fc.asyncProperty(raw, async (text) => {
          const res = await sendBeacon(t, undefined, { raw: text });
          expect([200, 400, 404, 413]).toContain(res.status);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
        }),
        { numRuns: 150 },
      );
    });
  });
}

describe('beacon rate limit', async () => {
  const [pglite] = backends();
  const db = await pglite!.create();

  test('600 beacons a minute per client IP, then 429 with Retry-After and CORS', async () => {
    await awayFromWindowEnd();
    const t = await testApp(db, { RATE_LIMIT: 'on', TRUST_PROXY: '1' }, { mirror: false, workers: false });
    const client = { 'x-forwarded-for': '198.51.100.90' };
    // The cheapest beacon to answer: a body that fails validation touches no storage.
    for (let i = 0; i < 600; i++) expect((await sendBeacon(t, {}, { headers: client })).status).toBe(400);
    const limited = await sendBeacon(t, {}, { headers: client });
    expect(limited.status).toBe(429);
    expect((await body(limited)).error).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
    // Exposed, so a landing page's script can read how long to wait.
    expect(limited.headers.get('access-control-expose-headers')).toBe('Retry-After');
    expect((await sendBeacon(t, {}, { headers: { 'x-forwarded-for': '198.51.100.91' } })).status).toBe(400);
  }, 60_000);
});
