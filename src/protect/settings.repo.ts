import type { Queryable } from '../db/db';
import { DEFAULT_INVALID_THRESHOLD } from '../tracking/risk/risk-signals';

/** The score at which the organization's clicks are invalid (organizations.invalid_threshold). */
export async function selectInvalidThreshold(db: Queryable, orgId: string): Promise<number> {
  const [row] = await db.query<{ invalid_threshold: number }>('SELECT invalid_threshold FROM organizations WHERE id = $1', [orgId]);
  return row ? Number(row.invalid_threshold) : DEFAULT_INVALID_THRESHOLD;
}

export async function updateInvalidThreshold(db: Queryable, orgId: string, threshold: number): Promise<void> {
  await db.query('UPDATE organizations SET invalid_threshold = $2 WHERE id = $1', [orgId, threshold]);
}
