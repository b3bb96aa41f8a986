import type { IpType } from '../ipintel/asn-types';
import type { ClickRecord } from '../tracking/click.model';
import type { RepeatWindow } from './repeat-window';
import { riskOf, type RiskSignal } from './risk-signals';

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
  if (facts.verifiedCrawler) {
    click.risk_score = 0;
    click.risk_reasons = [];
    return;
  }
  const found: RiskSignal[] = [];
  if (facts.ipType === 'datacenter') found.push('datacenter_ip');
  if (facts.unverifiedBot) found.push('unverified_bot');
  const { at } = facts;
  if (click.ip && !Number.isNaN(at) && repeats.exceeds(`${click.org_id}\u0000${click.link_id ?? ''}\u0000${click.ip}`, at)) {
    found.push('rapid_repeat');
  }
  // Most clicks have no signal: nothing to order or add up.
  if (found.length === 0) {
    click.risk_score = 0;
    click.risk_reasons = [];
  } else Object.assign(click, riskOf(found));
}
