import type { IpType } from '../../ipintel/asn/asn-types';
import type { ClickRecord } from '../click.model';
import type { RepeatWindow } from './repeat-window';
import { riskOf, type ClickRisk, type RiskSignal } from './risk-signals';

/** What the click step knows of a click beyond its record (src/tracking/enrich/steps.ts). */
export interface ClickFacts {
  /** A verified search-engine crawler: never risky (docs/protect.md). */
  verifiedCrawler: boolean;
  /** A bot user agent, or a crawler claim from outside the crawler's ranges. */
  unverifiedBot: boolean;
  ipType: IpType | null;
  /** The click's time in ms (Date.parse of created_at; NaN when unreadable: no repeat is counted). */
  at: number;
}

/**
 * The click family of risk signals, found as the click is enriched: datacenter_ip, unverified_bot
 * and rapid_repeat. Sets risk_score and risk_reasons on the record.
 */
export function scoreClick(click: ClickRecord, facts: ClickFacts, repeats: RepeatWindow): void {
  if (facts.verifiedCrawler) return setRisk(click, 0);
  let found = 0;
  if (facts.ipType === 'datacenter') found |= DATACENTER_IP;
  if (facts.unverifiedBot) found |= UNVERIFIED_BOT;
  const { at } = facts;
  if (click.ip && !Number.isNaN(at) && repeats.exceeds(`${click.org_id}\u0000${click.link_id ?? ''}\u0000${click.ip}`, at)) {
    found |= RAPID_REPEAT_FOUND;
  }
  setRisk(click, found);
}

const DATACENTER_IP = 1;
const UNVERIFIED_BOT = 2;
const RAPID_REPEAT_FOUND = 4;

/**
 * The score and reasons of each of the eight combinations of the click family's signals, worked
 * out once from the table and shared by every click with that combination (frozen: a stored
 * click's reasons are read, never changed in place). Most clicks have none; a flood has the same.
 */
const OUTCOMES: readonly ClickRisk[] = Array.from({ length: 8 }, (_, mask) => {
  const found: RiskSignal[] = [];
  if (mask & DATACENTER_IP) found.push('datacenter_ip');
  if (mask & UNVERIFIED_BOT) found.push('unverified_bot');
  if (mask & RAPID_REPEAT_FOUND) found.push('rapid_repeat');
  const risk = riskOf(found);
  return { risk_score: risk.risk_score, risk_reasons: Object.freeze(risk.risk_reasons) as RiskSignal[] };
});

function setRisk(click: ClickRecord, found: number): void {
  const risk = OUTCOMES[found]!;
  click.risk_score = risk.risk_score;
  click.risk_reasons = risk.risk_reasons;
}
