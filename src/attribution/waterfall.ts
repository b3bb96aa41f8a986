import type { Attribution, WaterfallInput } from './attribution.model';
import { findSignalTouches, type SignalTouches } from './attribution.repo';
import { deviceTypeOf, osFamilyOf } from './device-signals';
import { parseInstallReferrer } from './link-params';
import { clickIdTier } from './tiers/click-id';
import { deferredDeeplinkTier } from './tiers/deferred-deeplink';
import { gclidTier } from './tiers/gclid';
import { householdTier } from './tiers/household';
import { installReferrerTier } from './tiers/install-referrer';
import { probabilisticTier } from './tiers/probabilistic';
import { skanTier } from './tiers/skan';
import { HOUR_MS, windowBefore, type Tier, type TierContext, type WaterfallDeps } from './tiers/tier';
import { utcDays, viewThroughTier } from './tiers/view-through';

export type { WaterfallDeps } from './tiers/tier';

/** The spec's order; the first tier that matches decides. ORGANIC is what is left. */
export const TIERS: readonly Tier[] = [
  clickIdTier,
  installReferrerTier,
  gclidTier,
  deferredDeeplinkTier,
  probabilisticTier,
  viewThroughTier,
  householdTier,
  skanTier,
];

export const ORGANIC: Attribution = {
  method: 'ORGANIC',
  campaignId: null,
  clickId: null,
  impressionId: null,
  deepLinkPath: null,
  confidence: null,
  evidence: { tier: 'ORGANIC', signals: [] },
};

/** The shared reads and parsed signals every tier sees; each read runs at most once per install. */
export function tierContext(deps: WaterfallDeps, input: WaterfallInput): TierContext {
  let signals: Promise<SignalTouches | null> | undefined;
  return {
    deps,
    input,
    referrer: parseInstallReferrer(input.installReferrer),
    osFamily: osFamilyOf(input.platform),
    deviceType: deviceTypeOf(input.platform),
    signals() {
      signals ??= readSignals(deps, input);
      return signals;
    },
  };
}

/** One round trip for tiers 4 to 7; null when the address is unknown. */
function readSignals(deps: WaterfallDeps, input: WaterfallInput): Promise<SignalTouches | null> {
  const ip = input.ip;
  if (!ip) return Promise.resolve(null);
  const s = input.settings;
  const viewRange = windowBefore(input, s.viewThroughWindowHours * HOUR_MS);
  return findSignalTouches(deps.db, {
    orgId: input.orgId,
    appId: input.appId,
    ip,
    ipRange: windowBefore(input, Math.max(s.deferredDeeplinkWindowHours, s.probabilisticWindowHours) * HOUR_MS),
    ipDayHashes: utcDays(viewRange.from, viewRange.to).map((day) => deps.ipHasher.ipDay(ip, day)),
    viewRange,
    householdHash: deps.ipHasher.household(ip),
    householdRange: windowBefore(input, s.householdWindowHours * HOUR_MS),
  });
}

/** Runs the tiers in order and stops at the first match. */
export async function runWaterfall(deps: WaterfallDeps, input: WaterfallInput, tiers: readonly Tier[] = TIERS): Promise<Attribution> {
  const context = tierContext(deps, input);
  for (const tier of tiers) {
    const match = await tier.match(context);
    if (match) return match;
  }
  return ORGANIC;
}
