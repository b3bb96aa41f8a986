import { CursorQuery } from '../http/pagination';
import { t } from 'elysia';
import { KeyRateLimitField } from '../auth/key-rate-limit';
import { WholeNumber } from '../http/strict-body';

/** The platforms of the spec's InstallRequest; an app's SDK key is bound to one of them. */
export const PLATFORMS = [
  'ios',
  'android',
  'tvos',
  'android_tv',
  'roku',
  'fire_tv',
  'samsung_tv',
  'lg_tv',
  'windows',
  'macos',
  'playstation',
  'xbox',
  'nintendo',
  'web',
] as const;
export type Platform = (typeof PLATFORMS)[number];

/**
 * Attribution windows and switches, stored in apps.settings and read by the waterfall: an absent
 * key means the default, a window of 0 switches its tier off, and bounds refuse typos (7000 hours).
 * A new setting goes here and in docs/management-api.md; unknown keys answer 400.
 */
export const SETTING_RANGES = {
  click_lookback_days: { min: 0, max: 30 },
  deferred_deeplink_window_hours: { min: 0, max: 168 },
  probabilistic_window_hours: { min: 0, max: 24 },
  view_through_window_hours: { min: 0, max: 168 },
  household_window_hours: { min: 0, max: 720 },
} as const;

const bounded = (name: keyof typeof SETTING_RANGES) => {
  const { min, max } = SETTING_RANGES[name];
  return t.Optional(t.Union([WholeNumber({ minimum: min, maximum: max }), t.Null()], { error: `must be an integer from ${min} to ${max}, or null for the default` }));
};

/** null removes a key (back to the default); PATCH merges these keys into the stored settings. */
export const AppSettings = t.Object(
  {
    click_lookback_days: bounded('click_lookback_days'),
    deferred_deeplink_window_hours: bounded('deferred_deeplink_window_hours'),
    probabilistic_window_hours: bounded('probabilistic_window_hours'),
    view_through_window_hours: bounded('view_through_window_hours'),
    household_window_hours: bounded('household_window_hours'),
    skan_enabled: t.Optional(t.Union([t.Boolean(), t.Null()], { error: 'must be true, false or null for the default' })),
  },
  { additionalProperties: false },
);
export type AppSettings = typeof AppSettings.static;

export const REATTRIBUTION_DAYS = { min: 1, max: 730, default: 90 } as const;

// Printable text without leading or trailing blanks.
const TEXT = '^\\S(?:[^\\u0000-\\u001f\\u007f]*\\S)?$';
const Name = t.String({ minLength: 1, maxLength: 200, pattern: TEXT, error: 'must be 1 to 200 printable characters without leading or trailing blanks' });
const StoreUrl = t.Union([t.String({ maxLength: 2048 }), t.Null()], { error: 'must be an absolute http(s) URL or null' });
// The App Store id SKAdNetwork postbacks name the app by (their `app-id`), as digits.
const AppleAppId = t.Union([t.String({ pattern: '^(0|[1-9][0-9]{0,19})$' }), t.Null()], {
  error: 'must be the App Store id as a string of digits without leading zeros, or null',
});
const ReattributionDays = WholeNumber({
  minimum: REATTRIBUTION_DAYS.min,
  maximum: REATTRIBUTION_DAYS.max,
  error: `must be an integer from ${REATTRIBUTION_DAYS.min} to ${REATTRIBUTION_DAYS.max}`,
});

export const CreateAppBody = t.Object(
  {
    name: Name,
    platform: t.Union(PLATFORMS.map((p) => t.Literal(p)), { error: `must be one of ${PLATFORMS.join(', ')}` }),
    // Store bundle id, package name or channel id: one token, no blanks.
    bundle_id: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 255, pattern: '^[^\\s\\u0000-\\u001f\\u007f]+$' }), t.Null()], { error: 'must be 1 to 255 characters without blanks, or null' })),
    store_url: t.Optional(StoreUrl),
    apple_app_id: t.Optional(AppleAppId),
    reattribution_days: t.Optional(ReattributionDays),
    settings: t.Optional(AppSettings),
    rate_limit_per_minute: t.Optional(KeyRateLimitField),
  },
  { additionalProperties: false },
);
export type CreateAppBody = typeof CreateAppBody.static;

/** platform and bundle_id are fixed: the SDK key shipped in the app binary is bound to them. */
export const PatchAppBody = t.Object(
  {
    name: t.Optional(Name),
    store_url: t.Optional(StoreUrl),
    apple_app_id: t.Optional(AppleAppId),
    reattribution_days: t.Optional(ReattributionDays),
    settings: t.Optional(AppSettings),
    rate_limit_per_minute: t.Optional(KeyRateLimitField),
  },
  { additionalProperties: false },
);
export type PatchAppBody = typeof PatchAppBody.static;

export const AppParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
export const ListAppsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
  cursor: CursorQuery,
});
export type ListAppsQuery = typeof ListAppsQuery.static;
export const DEFAULT_LIST_LIMIT = 100;

export interface AppRow {
  id: string;
  org_id: string;
  name: string;
  platform: Platform;
  bundle_id: string | null;
  store_url: string | null;
  apple_app_id: string | null;
  sdk_key: string;
  reattribution_days: number;
  settings: Record<string, unknown>;
  /** The SDK key's own requests a minute (src/auth/key-rate-limit.ts); null: none. */
  rate_limit_per_minute: number | null;
  created_at: Date;
}

/** An app as the API answers it: the stored row without its organization, timestamps as ISO strings. */
export type AppResponse = Omit<AppRow, 'org_id' | 'created_at'> & { created_at: string };
