import type { Queryable } from '../../db/db';

/**
 * Takes one visit of a capped link: a single atomic UPDATE, so nodes sharing the database never
 * hand out more slots than `click_cap` between them. True when a slot was taken; false when the
 * cap is reached, the link has no cap (callers only claim for capped links) or is gone.
 * `cap_used` never resets: raising the cap allows more visits, lowering it below what was used
 * closes the link at once (docs/smart-link-serving.md, "Click cap").
 */
export async function claimCapSlot(db: Queryable, linkId: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE links SET cap_used = cap_used + 1
      WHERE id = $1 AND click_cap IS NOT NULL AND cap_used < click_cap
      RETURNING cap_used`,
    [linkId],
  );
  return rows.length === 1;
}

/** Whether a capped link has no visit left, without taking one (the route test reads it). */
export async function capReached(db: Queryable, linkId: string): Promise<boolean> {
  const rows = await db.query<{ reached: boolean }>('SELECT cap_used >= click_cap AS reached FROM links WHERE id = $1 AND click_cap IS NOT NULL', [linkId]);
  return rows[0]?.reached === true;
}
