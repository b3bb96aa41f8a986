/**
 * The one table of risk signals (docs/protect.md, "Signals"). A click's score is the sum of the
 * weights of the signals it has, capped at 100; its reasons are their names in this table's order.
 * A signal belongs to the step that finds it, so each step can recompute its own signals alone.
 */
export const RISK_SIGNALS = [
  { name: 'datacenter_ip', weight: 40, family: 'click', finds: 'the IP belongs to a hosting or cloud network (ASN data)' },
  { name: 'unverified_bot', weight: 60, family: 'click', finds: 'the user agent is a bot or a crawler claim whose IP is not the crawler\'s' },
  { name: 'rapid_repeat', weight: 50, family: 'click', finds: 'the same IP clicked the same link more than 5 times in 60 s' },
  { name: 'click_to_install_fast', weight: 40, family: 'install', finds: 'the install came less than 10 s after the click (click injection)' },
  { name: 'click_to_install_slow', weight: 20, family: 'install', finds: 'the install came more than 24 h after the click (click flooding)' },
  { name: 'webdriver', weight: 60, family: 'beacon', finds: 'the landing page ran under browser automation (navigator.webdriver)' },
  { name: 'no_dwell', weight: 15, family: 'beacon', finds: 'the visitor left the landing page within 1 s' },
  { name: 'no_scroll', weight: 10, family: 'beacon', finds: 'the visitor never scrolled the landing page' },
  { name: 'screen_invalid', weight: 30, family: 'beacon', finds: 'the screen size is impossible for a real device' },
  { name: 'timezone_mismatch', weight: 20, family: 'beacon', finds: 'the browser\'s time zone is not one of the IP country\'s zones' },
  { name: 'language_mismatch', weight: 10, family: 'beacon', finds: 'none of the browser\'s languages is spoken in the IP\'s country' },
  { name: 'fingerprint_reuse', weight: 35, family: 'beacon', finds: 'one browser fingerprint came from 3 or more IPs within 24 h' },
] as const;

export type RiskSignal = (typeof RISK_SIGNALS)[number]['name'];
export type SignalFamily = (typeof RISK_SIGNALS)[number]['family'];

export const MAX_RISK_SCORE = 100;
/** An organization's `invalid_threshold` when it has not set one. */
export const DEFAULT_INVALID_THRESHOLD = 50;

/** rapid_repeat: more than `limit` clicks of one IP on one link within `windowMs`. */
export const RAPID_REPEAT = { limit: 5, windowMs: 60_000 } as const;
/** click_to_install_fast / _slow: install time minus click time. */
export const CLICK_TO_INSTALL = { fastBelowMs: 10_000, slowAboveMs: 24 * 3_600_000 } as const;
/** no_dwell: a dwell shorter than this. */
export const MIN_DWELL_MS = 1_000;
/** fingerprint_reuse: one fingerprint from at least `ips` distinct IPs within `windowMs`. */
export const FINGERPRINT_REUSE = { ips: 3, windowMs: 24 * 3_600_000 } as const;
/** screen_invalid: a width or height (CSS pixels) below `min` or above `max`; 0x0 is headless. */
export const SCREEN_LIMITS = { min: 200, max: 16_384 } as const;

const ORDER = new Map<string, number>(RISK_SIGNALS.map((signal, index) => [signal.name, index]));
const WEIGHT = new Map<string, number>(RISK_SIGNALS.map((signal) => [signal.name, signal.weight]));
const FAMILY = new Map<string, SignalFamily>(RISK_SIGNALS.map((signal) => [signal.name, signal.family]));

export const isRiskSignal = (name: string): name is RiskSignal => ORDER.has(name);

/** The score of a set of reasons: the sum of their weights, at most 100. Unknown names count 0. */
export function riskScore(reasons: Iterable<string>): number {
  let sum = 0;
  for (const reason of new Set(reasons)) sum += WEIGHT.get(reason) ?? 0;
  return Math.min(MAX_RISK_SCORE, sum);
}

/** Known signals, each once, in the table's order. */
export function orderReasons(reasons: Iterable<string>): RiskSignal[] {
  return [...new Set(reasons)].filter(isRiskSignal).sort((a, b) => ORDER.get(a)! - ORDER.get(b)!);
}

/**
 * A click's reasons after one step re-examined it: that family's earlier findings are replaced by
 * `found`, every other family's are kept (a later beacon may take back `no_scroll`, never `webdriver`
 * of the click step).
 */
export function replaceFamily(existing: Iterable<string>, family: SignalFamily, found: Iterable<RiskSignal>): RiskSignal[] {
  const kept = [...existing].filter((reason) => isRiskSignal(reason) && FAMILY.get(reason) !== family);
  return orderReasons([...kept, ...found]);
}

/** Reasons and score together, as stored on a click. */
export interface ClickRisk {
  risk_score: number;
  risk_reasons: RiskSignal[];
}

export const riskOf = (reasons: Iterable<string>): ClickRisk => {
  const ordered = orderReasons(reasons);
  return { risk_score: riskScore(ordered), risk_reasons: ordered };
};
