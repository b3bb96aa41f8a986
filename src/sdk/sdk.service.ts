import { attributionSettings } from '../attribution/attribution.model';
import { findClickById } from '../attribution/attribution.repo';
import { CLICK_ID_PATTERN, clickIdFromUrl } from '../attribution/link-params';
import { DAY_MS, DEVICE_CLOCK_TOLERANCE_MS } from '../attribution/tiers/tier';
import type { SdkApp } from '../auth/sdk-keys';
import type { Db } from '../db/db';
import { notFound, validationError } from '../http/errors';
import { newId, type Clock } from '../shared/ids';
import { deviceIdHash } from './device-id';
import { clearUninstalled, findInstallByDevice, findInstallById, setPushToken } from './installs.repo';
import {
  EVENT_PARAMS_ERROR,
  MAX_EVENT_PARAM_KEY_LENGTH,
  MAX_EVENT_PARAMS_BYTES,
  MAX_EVENT_PARAMS_KEYS,
  type AdRevenueRequest,
  type EventsRequest,
  type OpenRequest,
  type PushTokenRequest,
  type SubscriptionRequest,
} from './sdk.model';
import { findSubscription, insertEvent, insertEvents, insertReengagement, insertSubscription, linkSubscription, type EventRow } from './sdk.repo';
import { instantOf } from '../http/timestamp-field';

export interface SdkDeps {
  db: Db;
  clock: Clock;
}

/** A device-reported time, never later than now (a clock running ahead must not date events in the future). */
function reportedTime(sent: string | null | undefined, now: Date, field: string): Date {
  if (!sent) return now;
  const at = instantOf(sent, field);
  return at.getTime() > now.getTime() ? now : at;
}

/**
 * The install an SDK call belongs to: the install id it sent, if that install is this app's,
 * else the app's install for the device; null before any install call.
 */
async function resolveInstall(db: Db, app: SdkApp, hash: string, installId: string | null | undefined): Promise<string | null> {
  if (installId) {
    const byId = await findInstallById(db, app.appId, installId);
    if (byId) return byId.id;
  }
  return (await findInstallByDevice(db, app.appId, hash))?.id ?? null;
}

const upper = (currency: string | null | undefined) => (currency ? currency.toUpperCase() : null);

/** Whether free-form params fit what one event may store; a public SDK key must not buy unbounded storage. */
function paramsFit(params: Record<string, unknown>): boolean {
  const keys = Object.keys(params);
  if (keys.length > MAX_EVENT_PARAMS_KEYS || keys.some((key) => key.length > MAX_EVENT_PARAM_KEY_LENGTH)) return false;
  return Buffer.byteLength(JSON.stringify(params), 'utf8') <= MAX_EVENT_PARAMS_BYTES;
}

export async function recordEvents(deps: SdkDeps, app: SdkApp, request: EventsRequest, region: string | null): Promise<{ accepted: number }> {
  const problems: Record<string, string[]> = {};
  request.events.forEach((event, index) => {
    if (event.params && !paramsFit(event.params)) problems[`events.${index}.params`] = [EVENT_PARAMS_ERROR];
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  const hash = deviceIdHash(request.device_id);
  const installId = await resolveInstall(deps.db, app, hash, request.install_id);
  const now = deps.clock();
  const rows: EventRow[] = request.events.map((event, index) => ({
    id: newId(),
    orgId: app.orgId,
    appId: app.appId,
    installId,
    deviceIdHash: hash,
    name: event.name,
    value: event.value ?? null,
    currency: upper(event.currency),
    params: event.params ?? null,
    occurredAt: reportedTime(event.occurred_at, now, `events.${index}.occurred_at`),
    region,
  }));
  return { accepted: await insertEvents(deps.db, rows) };
}

export async function recordAdRevenue(deps: SdkDeps, app: SdkApp, request: AdRevenueRequest): Promise<{ accepted: number; install_id: string | null }> {
  const hash = deviceIdHash(request.device_id);
  const installId = await resolveInstall(deps.db, app, hash, request.install_id);
  const now = deps.clock();
  const rows: EventRow[] = request.events.map((event, index) => {
    const detail = { network: event.network, ad_unit: event.ad_unit, format: event.format, placement: event.placement, precision: event.precision, source: event.source };
    return {
      id: newId(),
      orgId: app.orgId,
      appId: app.appId,
      installId,
      deviceIdHash: hash,
      name: 'ad_revenue',
      value: event.revenue,
      currency: upper(event.currency) ?? 'USD',
      params: Object.fromEntries(Object.entries(detail).filter(([, value]) => value !== undefined && value !== null)),
      occurredAt: reportedTime(event.ts, now, `events.${index}.ts`),
      region: null,
    };
  });
  return { accepted: await insertEvents(deps.db, rows), install_id: installId };
}

export interface OpenResponse {
  reengagement_id: string;
  attributed: boolean;
  campaign_id: string | null;
  deep_link_path: string | null;
}

/**
 * A re-open of an installed app, attributed to a retargeting click named by click_id (or the
 * opening URL's svc_click_id) of this organization, inside the click lookback and after the
 * install's last attribution (older clicks brought the install itself).
 */
export async function recordOpen(deps: SdkDeps, app: SdkApp, request: OpenRequest): Promise<OpenResponse> {
  const hash = deviceIdHash(request.device_id);
  const install = await findInstallByDevice(deps.db, app.appId, hash);
  if (!install) throw notFound('install not found');
  if (install.uninstalled_at) await clearUninstalled(deps.db, install.id);
  const at = reportedTime(request.occurred_at, deps.clock(), 'occurred_at');
  const clickId = request.click_id ?? clickIdFromUrl(request.url);
  const lookback = attributionSettings(app.settings).clickLookbackDays * DAY_MS;
  const click =
    clickId && CLICK_ID_PATTERN.test(clickId)
      ? await findClickById(deps.db, app.orgId, clickId, {
          from: new Date(at.getTime() - lookback),
          to: new Date(at.getTime() + DEVICE_CLOCK_TOLERANCE_MS),
          after: new Date(install.attributed_at),
        })
      : null;
  const id = newId();
  await insertReengagement(deps.db, {
    id,
    orgId: app.orgId,
    appId: app.appId,
    installId: install.id,
    clickId: click?.id ?? null,
    campaignId: click?.campaignId ?? null,
    attributed: click !== null,
    deepLinkPath: click?.deepLinkPath ?? null,
    occurredAt: at,
  });
  return { reengagement_id: id, attributed: click !== null, campaign_id: click?.campaignId ?? null, deep_link_path: click?.deepLinkPath ?? null };
}

export async function recordPushToken(deps: SdkDeps, app: SdkApp, request: PushTokenRequest): Promise<{ install_id: string }> {
  const installId = await setPushToken(deps.db, app.appId, deviceIdHash(request.device_id), request.push_token);
  if (!installId) throw notFound('install not found');
  return { install_id: installId };
}

export interface SubscriptionResponse {
  subscription_id: string;
  install_id: string | null;
  linked: boolean;
  created: boolean;
}

/**
 * Links a store purchase to the install and records `trial_start` or `subscribe` on it, once:
 * a repeat (same store and original_transaction_id, or purchase token) answers created: false
 * and only adds the install link if the first call had none.
 */
export async function recordSubscription(deps: SdkDeps, app: SdkApp, request: SubscriptionRequest): Promise<SubscriptionResponse> {
  const originalTransactionId = request.original_transaction_id ?? null;
  const purchaseToken = request.purchase_token ?? null;
  if (originalTransactionId === null && purchaseToken === null) {
    throw validationError({}, ['original_transaction_id or purchase_token is required']);
  }
  const hash = deviceIdHash(request.device_id);
  const installId = await resolveInstall(deps.db, app, hash, request.install_id);
  const now = deps.clock();
  const occurredAt = reportedTime(request.occurred_at, now, 'occurred_at');
  const expiresAt = request.expires_at ? instantOf(request.expires_at, 'expires_at') : null;
  const isTrial = request.is_trial ?? false;
  return deps.db.transaction(async (tx) => {
    const created = await insertSubscription(tx, {
      id: newId(),
      orgId: app.orgId,
      appId: app.appId,
      installId,
      deviceIdHash: hash,
      store: request.store,
      originalTransactionId,
      purchaseToken,
      productId: request.product_id,
      isTrial,
      priceMicros: request.price_micros ?? null,
      currency: upper(request.currency),
      expiresAt,
      occurredAt,
    });
    if (created) {
      await insertEvent(tx, {
        id: newId(),
        orgId: app.orgId,
        appId: app.appId,
        installId,
        deviceIdHash: hash,
        name: isTrial ? 'trial_start' : 'subscribe',
        value: isTrial || request.price_micros === undefined ? null : request.price_micros / 1_000_000,
        currency: upper(request.currency),
        params: { subscription_id: created.id, store: request.store, product_id: request.product_id },
        occurredAt,
        region: null,
      });
      return { subscription_id: created.id, install_id: installId, linked: installId !== null, created: true };
    }
    const existing = await findSubscription(tx, app.appId, request.store, { originalTransactionId, purchaseToken });
    if (!existing) throw new Error('subscription conflict without a row');
    const linkedTo = existing.install_id ?? (await linkSubscription(tx, existing.id, installId, hash));
    return { subscription_id: existing.id, install_id: linkedTo, linked: linkedTo !== null, created: false };
  });
}
