import { describe, expect, test } from 'bun:test';
import { ulid } from 'ulid';
import type { Db } from '../../src/db/db';
import { claimDueDeliveries, deleteDestination, recordOutcome } from '../../src/postbacks/postbacks.repo';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';

// A delivery's outcome and a destination's cancellation are written by (org_id, id), so a sharded
// store routes them to one shard (docs/scaling.md) and no other organization's row is touched.

async function pendingDelivery(db: Db, orgId: string) {
  const destinationId = ulid();
  const conversionId = ulid();
  const deliveryId = ulid();
  await db.query(`INSERT INTO postback_destinations (id, org_id, url, secret) VALUES ($1, $2, 'https://example.test/pb', 's')`, [destinationId, orgId]);
  await db.query(`INSERT INTO conversions (id, org_id, event_name, source) VALUES ($1, $2, 'purchase', 'api')`, [conversionId, orgId]);
  await db.query(
    `INSERT INTO postback_deliveries (id, org_id, destination_id, conversion_id, event_name) VALUES ($1, $2, $3, $4, 'purchase')`,
    [deliveryId, orgId, destinationId, conversionId],
  );
  return { destinationId, conversionId, deliveryId };
}

for (const backend of backends()) {
  describe(`postback outcomes by organization on ${backend.name}`, async () => {
    const db = await backend.create();
    const statusOf = async (id: string) =>
      (await db.query<{ status: string }>('SELECT status FROM postback_deliveries WHERE id = $1', [id]))[0]!.status;

    test('a claimed delivery carries its organization and its conversion, and its outcome is recorded', async () => {
      const org = await orgWithKey(db);
      const { deliveryId, conversionId } = await pendingDelivery(db, org.orgId);
      const claimed = (await claimDueDeliveries(db, 100, 60_000)).find((delivery) => delivery.id === deliveryId);
      expect(claimed?.orgId).toBe(org.orgId);
      expect(claimed?.conversion?.id).toBe(conversionId);
      await recordOutcome(db, claimed!, { kind: 'delivered', statusCode: 200 });
      expect(await statusOf(deliveryId)).toBe('delivered');
    });

    test('an outcome named with another organization changes nothing', async () => {
      const owner = await orgWithKey(db, 'Owner');
      const other = await orgWithKey(db, 'Other');
      const { deliveryId } = await pendingDelivery(db, owner.orgId);
      for (const outcome of [
        { kind: 'delivered', statusCode: 200 },
        { kind: 'failed', statusCode: 400, error: 'bad' },
        { kind: 'cancelled', error: 'gone' },
      ] as const) {
        await recordOutcome(db, { id: deliveryId, orgId: other.orgId }, outcome);
      }
      expect(await statusOf(deliveryId)).toBe('pending');
    });

    test('deleting a destination cancels its own organization’s pending deliveries', async () => {
      const org = await orgWithKey(db);
      const { destinationId, deliveryId } = await pendingDelivery(db, org.orgId);
      expect(await db.transaction((tx) => deleteDestination(tx, org.orgId, destinationId))).toEqual({ cancelled: 1 });
      expect(await statusOf(deliveryId)).toBe('cancelled');
    });

    test('deleting another organization’s destination is refused and cancels nothing', async () => {
      const owner = await orgWithKey(db, 'Owner');
      const other = await orgWithKey(db, 'Other');
      const { destinationId, deliveryId } = await pendingDelivery(db, owner.orgId);
      expect(await db.transaction((tx) => deleteDestination(tx, other.orgId, destinationId))).toBeNull();
      expect(await statusOf(deliveryId)).toBe('pending');
    });
  });
}
