import { attributionSettings, type Attribution, type WaterfallInput } from '../attribution/attribution.model';
import { DAY_MS } from '../attribution/tiers/tier';
import { runWaterfall } from '../attribution/waterfall';
import type { SdkApp } from '../auth/sdk-keys';
import type { Db } from '../db/db';
import { scoreInstalledClick } from '../protect/scoring/install-signals';
import { newId, type Clock } from '../shared/ids';
import type { IpHasher } from '../shared/crypto/ip-hash';
import { deviceIdHash } from './device-id';
import type { InstallForwarder } from './forwarder.service';
import { clearUninstalled, findInstallByDevice, reattributeInstall, type InstallRow } from './installs.repo';
import type { InstallWriter } from './installs.writer';
import type { InstallRequest, InstallResponse } from './sdk.model';
import { instantOf } from '../http/timestamp-field';

export interface InstallDeps {
  db: Db;
  clock: Clock;
  ipHasher: IpHasher;
  forwarder: InstallForwarder;
  /** Group commit for new installs (installs.writer.ts). */
  installWriter: InstallWriter;
}

export interface InstallOutcome {
  status: 200 | 201;
  body: InstallResponse;
}

/** Addresses that mean "unknown" (no socket, no trusted header) must not match each other's clicks. */
function knownIp(ip: string): string | null {
  return ip === '0.0.0.0' || ip === '::' ? null : ip;
}

/** The install's time: the device's first open when sent, never later than now. */
function installTime(sent: string | undefined, now: Date): Date {
  if (!sent) return now;
  const at = instantOf(sent, 'installed_at');
  return at.getTime() > now.getTime() ? now : at;
}

export function installResponse(row: InstallRow): InstallResponse {
  return {
    install_id: row.id,
    attribution: { method: row.attribution_method, campaign: row.campaign_id, click_id: row.click_id, deep_link_path: row.deep_link_path },
    is_reattribution: row.is_reattribution,
  };
}

/** A touch re-attributes; SKAN and ORGANIC are the absence of one. */
const isTouch = (a: Attribution) => a.method !== 'SKAN' && a.method !== 'ORGANIC';

/**
 * Records an install and runs the waterfall. A repeat for the same app and device answers the
 * existing install (200); once the app's reattribution_days have passed since its last
 * attribution, a touch newer than that attribution re-attributes it (docs/attribution.md).
 */
export async function recordInstall(deps: InstallDeps, input: { app: SdkApp; request: InstallRequest; ip: string; region: string | null; country: string | null }): Promise<InstallOutcome> {
  const { app, request } = input;
  const hash = deviceIdHash(request.device_id);
  const now = deps.clock();
  const at = installTime(request.installed_at, now);
  const ip = knownIp(input.ip);
  const waterfall: WaterfallInput = {
    orgId: app.orgId,
    appId: app.appId,
    platform: request.platform,
    ip,
    osVersion: request.os_version ?? null,
    clickId: request.click_id ?? null,
    installReferrer: request.install_referrer ?? null,
    gclid: request.gclid ?? null,
    at,
    after: null,
    settings: attributionSettings(app.settings),
  };

  const existing = await findInstallByDevice(deps.db, app.appId, hash);
  if (existing) {
    // A reinstall of an app the uninstall checker found gone.
    if (existing.uninstalled_at) await clearUninstalled(deps.db, existing.id);
    return repeatInstall(deps, { app, request, hash, existing, waterfall });
  }

  const attribution = await runWaterfall(deps, waterfall);
  const inserted = await deps.installWriter.submit({
    id: newId(),
    orgId: app.orgId,
    appId: app.appId,
    deviceIdHash: hash,
    platform: request.platform,
    osVersion: request.os_version ?? null,
    appVersion: request.app_version ?? null,
    sdkVersion: request.sdk_version ?? null,
    locale: request.locale ?? null,
    timezone: request.timezone ?? null,
    limitAdTracking: request.limit_ad_tracking ?? null,
    installedAt: at,
    attribution,
    ipDayHash: ip ? deps.ipHasher.ipDay(ip, at) : null,
    householdHash: ip ? deps.ipHasher.household(ip) : null,
    region: input.region,
    country: input.country,
  });
  if (!inserted) {
    // A concurrent call for the same device inserted first: this is a repeat of it.
    const winner = await findInstallByDevice(deps.db, app.appId, hash);
    if (!winner) throw new Error('install conflict without a row');
    return { status: 200, body: installResponse(winner) };
  }
  const body = installResponse(inserted);
  await scoreClickOf(deps, app, attribution, at);
  forward(deps, app, request, body, at);
  return { status: 201, body };
}

async function repeatInstall(
  deps: InstallDeps,
  input: { app: SdkApp; request: InstallRequest; hash: string; existing: InstallRow; waterfall: WaterfallInput },
): Promise<InstallOutcome> {
  const { app, request, hash, existing, waterfall } = input;
  const previous = new Date(existing.attributed_at);
  const due = previous.getTime() + app.reattributionDays * DAY_MS;
  if (waterfall.at.getTime() < due) return { status: 200, body: installResponse(existing) };

  const attribution = await runWaterfall(deps, { ...waterfall, after: previous });
  if (!isTouch(attribution)) return { status: 200, body: installResponse(existing) };
  const updated = await reattributeInstall(deps.db, {
    id: existing.id,
    previousAttributedAt: previous,
    at: waterfall.at,
    attribution,
    appVersion: request.app_version ?? null,
    osVersion: request.os_version ?? null,
  });
  if (!updated) {
    // A concurrent repeat re-attributed it first; answer what it stored.
    const current = await findInstallByDevice(deps.db, app.appId, hash);
    return { status: 200, body: installResponse(current ?? existing) };
  }
  const body = installResponse(updated);
  await scoreClickOf(deps, app, attribution, waterfall.at);
  forward(deps, app, request, body, waterfall.at);
  return { status: 200, body };
}

/**
 * The install's time against its click's is a risk signal of that click (docs/protect.md). The
 * install is stored already: a failure here is logged, never the install's answer.
 */
async function scoreClickOf(deps: InstallDeps, app: SdkApp, attribution: Attribution, installedAt: Date): Promise<void> {
  if (!attribution.clickId) return;
  try {
    await scoreInstalledClick(deps.db, { orgId: app.orgId, clickId: attribution.clickId, installedAt });
  } catch (error) {
    console.error('install risk signals:', error instanceof Error ? error.message : error);
  }
}

/**
 * Hands the advertising id to the app's ad-platform forwarder, if one is configured. It lives in
 * memory for the send only and is never stored; the tracking-limited flag withholds it.
 */
function forward(deps: InstallDeps, app: SdkApp, request: InstallRequest, body: InstallResponse, at: Date) {
  if (!request.advertising_id || request.limit_ad_tracking === true) return;
  deps.forwarder.forwardInstall({
    orgId: app.orgId,
    appId: app.appId,
    payload: {
      event: body.is_reattribution ? 'reattribution' : 'install',
      app_id: app.appId,
      install_id: body.install_id,
      platform: request.platform,
      advertising_id: request.advertising_id,
      installed_at: at.toISOString(),
      os_version: request.os_version ?? null,
      app_version: request.app_version ?? null,
      gclid: request.gclid ?? null,
      ttclid: request.ttclid ?? null,
      sc_click_id: request.sc_click_id ?? null,
      attribution: body.attribution,
    },
  });
}
