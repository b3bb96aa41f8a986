import type { Db, Queryable } from '../../db/db';
import { riskOf, replaceFamily, type ClickRisk, type RiskSignal, type SignalFamily } from '../../tracking/risk/risk-signals';

/** What a step that scores a stored click reads of it. */
export interface ScoredClick {
  id: string;
  created_at: Date;
  is_bot: boolean;
  ip: string | null;
  country: string | null;
  risk_reasons: string[];
}

/**
 * Re-examines one family of signals on a stored click of the organization, under a row lock so two
 * steps scoring the same click at once both land. A verified crawler keeps score 0. Returns the new
 * risk, or null when the click is not this organization's (or not stored yet).
 */
export async function rescoreClick(
  db: Db,
  orgId: string,
  clickId: string,
  family: SignalFamily,
  find: (click: ScoredClick, tx: Queryable) => RiskSignal[] | Promise<RiskSignal[]>,
): Promise<ClickRisk | null> {
  return db.transaction(async (tx) => {
    const [click] = await tx.query<ScoredClick>(
      `SELECT id, created_at, is_bot, ip, country, risk_reasons FROM clicks WHERE id = $1 AND org_id = $2 FOR UPDATE`,
      [clickId, orgId],
    );
    if (!click) return null;
    const risk = click.is_bot ? riskOf([]) : riskOf(replaceFamily(click.risk_reasons ?? [], family, await find(click, tx)));
    await setClickRisks(tx, orgId, [{ id: clickId, ...risk }]);
    return risk;
  });
}

/**
 * Stores new scores and reasons of one organization's clicks, any number in one statement. Keyed
 * by org_id so a sharded store routes it to one shard (docs/scaling.md) and another
 * organization's click of the same id is never touched.
 */
export async function setClickRisks(tx: Queryable, orgId: string, risks: readonly (ClickRisk & { id: string })[]): Promise<void> {
  if (risks.length === 0) return;
  await tx.query(
    `UPDATE clicks c SET risk_score = r.risk_score, risk_reasons = r.risk_reasons
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, risk_score integer, risk_reasons jsonb)
      WHERE c.org_id = $2 AND c.id = r.id`,
    [JSON.stringify(risks), orgId],
  );
}
