/**
 * The web SDK of svc-attribution (docs/web-sdk.md): one SDK per page, configured once.
 * From a bundler: `import { configure, logEvent } from 'svc-web-sdk'`; from a script tag, the
 * same functions on the global `SvcSdk`.
 */
import type { ConsentStatus, EventOptions, OpenResponse, SdkConfig } from '../../core/src';
import { browserEnv } from './page';
import { Sdk } from './sdk';

export type { Attribution, ConsentStatus, EventOptions, InstallResponse, OpenResponse, SdkConfig } from '../../core/src';
export { SDK_VERSION } from './version';

let current: Sdk | undefined;

function sdk(): Sdk {
  if (!current) throw new Error('svc: call configure() first');
  return current;
}

/** Starts the SDK for this page; a second call replaces the first configuration. */
export function configure(config: SdkConfig): void {
  current?.stop();
  current = undefined;
  current = new Sdk(config, browserEnv());
}

/** `pending`, `granted` or `denied`. */
export function consentStatus(): ConsentStatus {
  return sdk().consentStatus();
}

export function setConsent(granted: boolean): void {
  sdk().setConsent(granted);
}

export function logEvent(name: string, options?: EventOptions): void {
  sdk().logEvent(name, options);
}

export function flush(): Promise<void> {
  return sdk().flush();
}

export function open(url?: string): Promise<OpenResponse> {
  return sdk().open(url);
}

/**
 * Erases this browser's data on the server, whatever the consent (POST /api/sdk/v1/forget), and
 * everything the SDK stored on this origin; configure() starts afresh with a new device id.
 * Resolves to the erasure request's id, or null when this browser never sent anything.
 */
export async function forget(): Promise<string | null> {
  const forgotten = sdk();
  current = undefined;
  return forgotten.forget();
}

/** Events waiting in the queue, and how many the 500-event cap has dropped. */
export function queueStats(): { queued: number; dropped: number } {
  return sdk().queueStats();
}
