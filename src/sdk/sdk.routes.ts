import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { assertSdkPlatform } from '../auth/sdk-keys';
import type { Config } from '../config/config';
import { clientIp } from '../http/client-ip';
import { strictBody } from '../http/strict-body';
import type { IpIntel } from '../ipintel/ip-intel';
import type { Clock } from '../shared/ids';
import type { IpHasher } from '../shared/crypto/ip-hash';
import type { WriteBurst } from '../shared/write-burst';
import type { InstallForwarder } from './forwarder.service';
import { forwarderRoutes } from './forwarder.routes';
import { recordInstall } from './install.service';
import { createInstallWriter } from './installs.writer';
import { documented } from '../http/documented';
import {
  AdRevenueRequest,
  AdRevenueResultBody,
  EventsRequest,
  EventsResultBody,
  InstallRequest,
  InstallResponseBody,
  OpenRequest,
  OpenResultBody,
  PushTokenRequest,
  PushTokenResultBody,
  SubscriptionRequest,
  SubscriptionResultBody,
} from './sdk.model';
import { recordAdRevenue, recordEvents, recordOpen, recordPushToken, recordSubscription } from './sdk.service';

/** The 400 beside the input check's: the SDK key's app is of another platform. */
const PLATFORM_MISMATCH = 'validation error, or a platform other than the SDK key\'s app';

type SdkServices = AuthDeps & {
  config: Pick<Config, 'sessionSecret' | 'trustProxy' | 'trustedProxies' | 'postbackAllowPrivate'>;
  clock: Clock;
  ipHasher: IpHasher;
  installForwarder: InstallForwarder;
  writeBurst: WriteBurst;
  /** The region of the caller's address, stored with installs and events for regional TV airings; an install's country too, for cohorts. */
  ipIntel: Pick<IpIntel, 'place' | 'country'>;
};

/**
 * The SDK endpoints (SDK key in X-SDK-Key or ?sdk_key=) and the forwarder setting (API key).
 * CORS, OPTIONS and the /api/sdk/* rate limit come from the HTTP rules plugin.
 */
export function sdkRoutes(services: SdkServices) {
  const { db, config, clock, ipHasher, ipIntel } = services;
  const callerIp = (request: Request, server: { requestIP(request: Request): { address: string } | null } | null) =>
    clientIp(request, server?.requestIP(request)?.address, config);
  const deps = { db, clock };
  const installDeps = { db, clock, ipHasher, forwarder: services.installForwarder, installWriter: createInstallWriter(db, { writeBurst: services.writeBurst }) };
  return new Elysia({ name: 'sdk' })
    .use(authPlugin(services))
    .use(forwarderRoutes(services))
    .post(
      '/api/sdk/v1/install',
      async ({ body, sdkApp, request, server, set }) => {
        assertSdkPlatform(sdkApp, body.platform);
        const ip = callerIp(request, server);
        const outcome = await recordInstall(installDeps, { app: sdkApp, request: body, ip, region: ipIntel.place(ip).region, country: ipIntel.country(ip) });
        set.status = outcome.status;
        return outcome.body;
      },
      { sdkKey: true, body: InstallRequest, detail: { summary: 'Record an install: attribution and the deferred deep link', ...documented({ 201: ['a new install, attributed', InstallResponseBody], 200: ['the existing install (same app and device_id)', InstallResponseBody], 400: [PLATFORM_MISMATCH] }) } },
    )
    .post('/api/sdk/v1/events', ({ body, sdkApp, request, server }) => recordEvents(deps, sdkApp, body, ipIntel.place(callerIp(request, server)).region), {
      sdkKey: true,
      body: EventsRequest,
      // Checked as sent: Elysia would copy a string given for `params` into an object of its characters.
      transform: strictBody(EventsRequest),
      detail: { summary: 'Record app events (at most 100 a call)', ...documented({ 200: ['events stored', EventsResultBody] }) },
    })
    .post('/api/sdk/v1/open', ({ body, sdkApp }) => recordOpen(deps, sdkApp, body), {
      sdkKey: true,
      body: OpenRequest,
      detail: { summary: 'Attribute a re-open to a retargeting click', ...documented({ 200: ['the re-engagement', OpenResultBody], 404: ['install not found'] }) },
    })
    .post(
      '/api/sdk/v1/push-token',
      ({ body, sdkApp }) => {
        assertSdkPlatform(sdkApp, body.platform);
        return recordPushToken(deps, sdkApp, body);
      },
      { sdkKey: true, body: PushTokenRequest, detail: { summary: "Store an install's push token", ...documented({ 200: ['the token stored on the install', PushTokenResultBody], 400: [PLATFORM_MISMATCH], 404: ['install not found'] }) } },
    )
    .post('/api/sdk/v1/subscription', ({ body, sdkApp }) => recordSubscription(deps, sdkApp, body), {
      sdkKey: true,
      body: SubscriptionRequest,
      detail: { summary: 'Link a store purchase to the install', ...documented({ 200: ['the subscription, linked to the install when known', SubscriptionResultBody] }) },
    })
    .post('/api/sdk/v1/ad-revenue', ({ body, sdkApp }) => recordAdRevenue(deps, sdkApp, body), {
      sdkKey: true,
      body: AdRevenueRequest,
      detail: { summary: 'Record ad revenue', ...documented({ 200: ['ad revenue stored as ad_revenue events', AdRevenueResultBody] }) },
    });
}
