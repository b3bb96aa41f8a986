/** The attribution methods of the spec, in waterfall order. */
export const ATTRIBUTION_METHODS = [
  'CLICK_ID',
  'INSTALL_REFERRER',
  'GCLID',
  'DEFERRED_DEEPLINK',
  'PROBABILISTIC',
  'VIEW_THROUGH',
  'HOUSEHOLD',
  'SKAN',
  'ORGANIC',
] as const;
export type AttributionMethod = (typeof ATTRIBUTION_METHODS)[number];

/** The app's attribution windows (apps.settings), after defaults. See docs/attribution.md. */
export interface AttributionSettings {
  clickLookbackDays: number;
  deferredDeeplinkWindowHours: number;
  probabilisticWindowHours: number;
  viewThroughWindowHours: number;
  householdWindowHours: number;
  skanEnabled: boolean;
}

export const DEFAULT_ATTRIBUTION_SETTINGS: AttributionSettings = {
  clickLookbackDays: 7,
  deferredDeeplinkWindowHours: 2,
  probabilisticWindowHours: 24,
  viewThroughWindowHours: 24,
  householdWindowHours: 72,
  skanEnabled: false,
};

/** A window of zero switches its tier off; anything that is not a finite number >= 0 means "use the default". */
function windowOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** Reads apps.settings (snake_case keys, each optional) into the windows the waterfall uses. */
export function attributionSettings(settings: Record<string, unknown> | null | undefined): AttributionSettings {
  const s = settings ?? {};
  const d = DEFAULT_ATTRIBUTION_SETTINGS;
  return {
    clickLookbackDays: windowOr(s.click_lookback_days, d.clickLookbackDays),
    deferredDeeplinkWindowHours: windowOr(s.deferred_deeplink_window_hours, d.deferredDeeplinkWindowHours),
    probabilisticWindowHours: windowOr(s.probabilistic_window_hours, d.probabilisticWindowHours),
    viewThroughWindowHours: windowOr(s.view_through_window_hours, d.viewThroughWindowHours),
    householdWindowHours: windowOr(s.household_window_hours, d.householdWindowHours),
    skanEnabled: typeof s.skan_enabled === 'boolean' ? s.skan_enabled : d.skanEnabled,
  };
}

/** What an install presents to the waterfall. */
export interface WaterfallInput {
  orgId: string;
  appId: string;
  platform: string;
  /** The device's address; null when unknown, which switches the IP-based tiers off. */
  ip: string | null;
  osVersion: string | null;
  clickId: string | null;
  installReferrer: string | null;
  gclid: string | null;
  /** The reference time: the install's time. Touches must come before it. */
  at: Date;
  /** Re-attribution: only touches strictly after this instant count. */
  after: Date | null;
  settings: AttributionSettings;
}

/** The outcome, ready to store on the install and to answer the SDK with. */
export interface Attribution {
  method: AttributionMethod;
  campaignId: string | null;
  clickId: string | null;
  impressionId: string | null;
  deepLinkPath: string | null;
  /** 0 to 1 for the tiers that match on shared signals rather than an identifier; null otherwise. */
  confidence: number | null;
  /** Which touch matched and on what signals (installs.match_evidence). */
  evidence: Record<string, unknown>;
}

/** A click as the waterfall reads it. */
export interface ClickTouch {
  id: string;
  campaignId: string | null;
  createdAt: Date;
  deepLinkPath: string | null;
  osFamily: string | null;
  osVersion: string | null;
  deviceType: string | null;
}

export interface ImpressionTouch {
  id: string;
  campaignId: string | null;
  createdAt: Date;
}
