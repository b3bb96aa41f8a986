import type { Db } from '../../src/db/db';
import { newId } from '../../src/shared/ids';

/**
 * A click row written straight into storage, as the redirect pipeline would have flushed it.
 * Conversion tests use it to have something to match against.
 */
export async function insertClick(
  db: Db,
  orgId: string,
  input: { id?: string; gclid?: string; campaignId?: string | null; createdAt?: Date; dropReason?: string; isBot?: boolean } = {},
) {
  const id = input.id ?? newId();
  await db.query(
    `INSERT INTO clicks (id, org_id, campaign_id, created_at, gclid, next_hop_url, drop_reason, is_bot)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, orgId, input.campaignId ?? null, input.createdAt ?? new Date(), input.gclid ?? null, 'https://shop.example.com/landing', input.dropReason ?? null, input.isBot ?? false],
  );
  return { clickId: id };
}
