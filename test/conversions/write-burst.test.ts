import '../support/slow-suite';
import { describe, expect, test } from 'bun:test';
import { WRITE_BURST_PER_SECOND } from '../../src/shared/write-burst';
import { poster, testApp } from '../support/app';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { hashedDeviceId, sdkApp } from '../support/sdk-fixtures';
import { eventually } from '../support/wait';
import { sdkCall } from '../sdk/support';

/*
 * Conversions and installs committed by group commit count as the node's write burst, and while the node is
 * in one the analytics mirror waits (docs/analytics-mirror.md): a burst of postbacks is answered
 * first and copied to DuckDB after it.
 */
for (const backend of backends()) {
  describe(`a conversion burst and the mirror on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, { MIRROR_INTERVAL_MS: '20' }, { workers: false });
    const post = poster(t, '/api/v1/conversions');
    const mirrored = async (orgId: string) =>
      Number((await t.services.mirror.query<{ n: number | bigint }>('SELECT count(*) AS n FROM conversions WHERE org_id = $1', [orgId]))[0]!.n);

    test('conversions written by group commit are counted: a burst of them makes the node busy', async () => {
      const org = await orgWithKey(db);
      const clicks = await Promise.all(Array.from({ length: WRITE_BURST_PER_SECOND + 50 }, () => insertClick(db, { orgId: org.orgId })));
      expect(t.services.writeBurst.busy()).toBe(false);
      const responses = await Promise.all(clicks.map((clickId) => post(org.auth, { click_id: clickId })));
      expect(responses.every((r) => r.status === 201)).toBe(true);
      expect(t.services.writeBurst.busy()).toBe(true);
    });

    test('installs written by group commit count as well', async () => {
      await eventually(async () => (t.services.writeBurst.busy() ? undefined : true));
      const org = await orgWithKey(db);
      const app = await sdkApp(db, org.orgId);
      const install = sdkCall(t, app.sdkKey);
      const responses = await Promise.all(Array.from({ length: WRITE_BURST_PER_SECOND + 50 }, () => install('install', { device_id: hashedDeviceId(), platform: 'android' })));
      expect(responses.every((r) => r.status === 201)).toBe(true);
      expect(t.services.writeBurst.busy()).toBe(true);
    });

    test('the mirror copies nothing while the burst lasts, and everything once it is over', async () => {
      // Wait for the previous test's burst to clear, so this one starts from a quiet node.
      await eventually(async () => (t.services.writeBurst.busy() ? undefined : true));
      const org = await orgWithKey(db);
      const clickId = await insertClick(db, { orgId: org.orgId });
      // A burst that lasts as long as the test says so.
      const hold = () => t.services.writeBurst.record(WRITE_BURST_PER_SECOND);
      hold();
      const holding = setInterval(hold, 100);
      try {
        await Bun.sleep(500); // the mirror thread hears of the burst (it polls every 200 ms)
        expect((await post(org.auth, { click_id: clickId })).status).toBe(201);
        await Bun.sleep(600); // thirty mirror intervals
        expect(await mirrored(org.orgId)).toBe(0);
      } finally {
        clearInterval(holding);
      }
      expect(await eventually(async () => ((await mirrored(org.orgId)) === 1 ? 1 : undefined))).toBe(1);
    });
  });
}
