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

/** Waits until `check` returns a value other than undefined, polling; fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await Bun.sleep(everyMs);
  }
}
