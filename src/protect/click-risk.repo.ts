import type { Db, Queryable } from '../db/db';
import { riskOf, replaceFamily, type ClickRisk, type RiskSignal, type SignalFamily } from './risk-signals';

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
    await tx.query(`UPDATE clicks SET risk_score = $3, risk_reasons = $4::jsonb WHERE id = $1 AND org_id = $2`, [
      clickId,
      orgId,
      risk.risk_score,
      JSON.stringify(risk.risk_reasons),
    ]);
    return risk;
  });
}
