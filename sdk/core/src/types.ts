/** The answers of the SDK endpoints the SDKs call (docs/sdk.md). */
export interface InstallResponse {
  install_id: string;
  attribution: { method: string; campaign: string | null; click_id: string | null; deep_link_path: string | null };
  is_reattribution: boolean;
}

export interface OpenResponse {
  reengagement_id: string;
  attributed: boolean;
  campaign_id: string | null;
  deep_link_path: string | null;
}

/**
 * What the attribution callback gets on every open (a launch once consent allows, and every
 * open() call): the install's answer (`firstLaunch` when it was just made), or a re-engagement's.
 */
export type Attribution = { kind: 'install'; firstLaunch: boolean; install: InstallResponse } | { kind: 'open'; open: OpenResponse };

/** What every SDK is configured with; each platform's SDK adds its own options. */
export interface SdkConfig {
  /** The app's SDK key (`sk_...`), of an app created for the SDK's platform. */
  sdkKey: string;
  /** The service's `{base_url}`, e.g. `https://attribution.example.com`. */
  baseUrl: string;
  /** Start at `pending` (nothing sent) until setConsent is called. */
  requireConsent?: boolean;
  onAttribution?: (attribution: Attribution) => void;
}
