import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { assertSdkPlatform } from '../auth/sdk-keys';
import type { Config } from '../config';
import { clientIp } from '../http/client-ip';
import type { IpIntel } from '../ipintel/ip-intel';
import type { Clock } from '../shared/ids';
import type { IpHasher } from '../shared/ip-hash';
import type { WriteBurst } from '../shared/write-burst';
import type { InstallForwarder } from './forwarder.service';
import { forwarderRoutes } from './forwarder.routes';
import { recordInstall } from './install.service';
import { createInstallWriter } from './installs.writer';
import { AdRevenueRequest, EventsRequest, InstallRequest, OpenRequest, PushTokenRequest, SubscriptionRequest } from './sdk.model';
import { recordAdRevenue, recordEvents, recordOpen, recordPushToken, recordSubscription } from './sdk.service';

type SdkServices = AuthDeps & {
  config: Pick<Config, 'sessionSecret' | 'trustProxy' | 'trustedProxies' | 'postbackAllowPrivate'>;
  clock: Clock;
  ipHasher: IpHasher;
  installForwarder: InstallForwarder;
  writeBurst: WriteBurst;
  /** The region of the caller's address, stored with installs and events for regional TV airings. */
  ipIntel: Pick<IpIntel, 'place'>;
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
        const outcome = await recordInstall(installDeps, { app: sdkApp, request: body, ip, region: ipIntel.place(ip).region });
        set.status = outcome.status;
        return outcome.body;
      },
      { sdkKey: true, body: InstallRequest },
    )
    .post('/api/sdk/v1/events', ({ body, sdkApp, request, server }) => recordEvents(deps, sdkApp, body, ipIntel.place(callerIp(request, server)).region), {
      sdkKey: true,
      body: EventsRequest,
    })
    .post('/api/sdk/v1/open', ({ body, sdkApp }) => recordOpen(deps, sdkApp, body), { sdkKey: true, body: OpenRequest })
    .post(
      '/api/sdk/v1/push-token',
      ({ body, sdkApp }) => {
        assertSdkPlatform(sdkApp, body.platform);
        return recordPushToken(deps, sdkApp, body);
      },
      { sdkKey: true, body: PushTokenRequest },
    )
    .post('/api/sdk/v1/subscription', ({ body, sdkApp }) => recordSubscription(deps, sdkApp, body), { sdkKey: true, body: SubscriptionRequest })
    .post('/api/sdk/v1/ad-revenue', ({ body, sdkApp }) => recordAdRevenue(deps, sdkApp, body), { sdkKey: true, body: AdRevenueRequest });
}
