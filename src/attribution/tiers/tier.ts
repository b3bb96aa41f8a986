import type { Queryable } from '../../db/db';
import type { Clock } from '../../shared/ids';
import type { IpHasher } from '../../shared/crypto/ip-hash';
import type { ClickWaitDeps } from '../../tracking/click-arrival';
import type { Attribution, AttributionMethod, ClickTouch, ImpressionTouch, WaterfallInput } from '../attribution.model';
import type { SignalTouches, TimeRange } from '../attribution.repo';
import type { ReferrerSignals } from '../link-params';

export interface WaterfallDeps {
  db: Queryable;
  ipHasher: IpHasher;
  /** With a clock, CLICK_ID waits for a click minted moments ago that is still on its way to the database. */
  clock?: Clock;
  clickWait?: Pick<ClickWaitDeps, 'timing' | 'sleep'>;
}

/** What every tier may read: the input, parsed signals, and reads shared between tiers (run at most once). */
export interface TierContext {
  deps: WaterfallDeps;
  input: WaterfallInput;
  referrer: ReferrerSignals;
  osFamily: string | null;
  deviceType: string | null;
  /** Touches sharing the install's address or household (tiers 4 to 7); null when the address is unknown. */
  signals(): Promise<SignalTouches | null>;
}

export interface Tier {
  method: AttributionMethod;
  match(context: TierContext): Promise<Attribution | null>;
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Identifier tiers (click id, referrer, gclid) accept a click stamped up to this long after the
 * install time, because that time comes from the device's clock; signal tiers do not.
 */
export const DEVICE_CLOCK_TOLERANCE_MS = 10 * 60_000;

/** The window ending at the install (plus a tolerance), never reaching back past a previous attribution. */
export function windowBefore(input: WaterfallInput, windowMs: number, toleranceMs = 0): TimeRange {
  return { from: new Date(input.at.getTime() - windowMs), to: new Date(input.at.getTime() + toleranceMs), after: input.after };
}

export function ageSeconds(input: WaterfallInput, touchedAt: Date): number {
  return Math.max(0, Math.round((input.at.getTime() - touchedAt.getTime()) / 1000));
}

/** 1 for a touch at the install, falling linearly to 0.5 at the far edge of its window. */
export function recency(input: WaterfallInput, touchedAt: Date, windowMs: number): number {
  if (windowMs <= 0) return 0.5;
  const age = Math.min(windowMs, Math.max(0, input.at.getTime() - touchedAt.getTime()));
  return 1 - 0.5 * (age / windowMs);
}

export const round3 = (value: number) => Math.round(value * 1000) / 1000;

export function fromClick(
  method: AttributionMethod,
  input: WaterfallInput,
  click: ClickTouch,
  detail: { signals: string[]; window: Record<string, number>; confidence?: number; extra?: Record<string, unknown> },
): Attribution {
  return {
    method,
    campaignId: click.campaignId,
    clickId: click.id,
    impressionId: null,
    deepLinkPath: click.deepLinkPath,
    confidence: detail.confidence ?? null,
    evidence: {
      tier: method,
      touch: 'click',
      click_id: click.id,
      touched_at: click.createdAt.toISOString(),
      age_seconds: ageSeconds(input, click.createdAt),
      signals: detail.signals,
      window: detail.window,
      ...(detail.confidence !== undefined ? { confidence: detail.confidence } : {}),
      ...detail.extra,
    },
  };
}

export function fromImpression(
  method: AttributionMethod,
  input: WaterfallInput,
  impression: ImpressionTouch,
  detail: { signals: string[]; window: Record<string, number>; confidence: number },
): Attribution {
  return {
    method,
    campaignId: impression.campaignId,
    clickId: null,
    impressionId: impression.id,
    deepLinkPath: null,
    confidence: detail.confidence,
    evidence: {
      tier: method,
      touch: 'impression',
      impression_id: impression.id,
      touched_at: impression.createdAt.toISOString(),
      age_seconds: ageSeconds(input, impression.createdAt),
      signals: detail.signals,
      window: detail.window,
      confidence: detail.confidence,
    },
  };
}
