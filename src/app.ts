import { Elysia, type AnyElysia } from 'elysia';
import { breakdownRoutes } from './analytics/breakdown/breakdown.routes';
import { linkStatsRoutes } from './analytics/link-stats/link-stats.routes';
import { cohortsRoutes } from './analytics/cohorts/cohorts.routes';
import { appsRoutes } from './apps/apps.routes';
import { authRoutes } from './auth/auth.routes';
import { keysRoutes } from './auth/keys.routes';
import { campaignsRoutes } from './campaigns/campaigns.routes';
import { clicksRoutes } from './clicks/clicks.routes';
import { conversionsRoutes } from './conversions/conversions.routes';
import { costsRoutes } from './costs/costs.routes';
import { fxRatesRoutes } from './fx-rates/fx-rates.routes';
import { dashboardAppsRoutes } from './dashboard/api/apps.routes';
import { dashboardLinksRoutes } from './dashboard/api/links.routes';
import { dashboardExportRoutes } from './dashboard/export/export.routes';
import { realtimeRoutes } from './dashboard/realtime/realtime.routes';
import { assetsRoutes } from './dashboard/web/assets.routes';
import { webRoutes } from './dashboard/web/web.routes';
import { openApiDocument, type RouteSource } from './openapi/openapi-document';
import { openApiRoutes } from './openapi/openapi.routes';
import { TRACKING_ROUTE_DOCS } from './tracking/redirect/tracking.docs';
import { domainsRoutes } from './domains/domains.routes';
import { edgeRoutes } from './edge/edge.routes';
import { impressionsRoutes } from './growth/impressions.routes';
import { tvAiringsRoutes } from './growth/tv-airings.routes';
import { postbacksRoutes } from './postbacks/postbacks.routes';
import { protectRoutes } from './protect/protect.routes';
import { healthRoutes } from './health/health.routes';
import { httpPlugin } from './http/http.plugin';
import { declaredRoutes, routeInProcess, type NativeRoutes, type PeerSource } from './http/native-routes';
import { ippoolRoutes } from './ipintel/pool/ippool.routes';
import { lookupIp } from './ipintel/pool/ippool.service';
import { linksRoutes } from './links/links.routes';
import { mcpRoutes } from './mcp/transport.routes';
import { beaconRoutes } from './protect/beacon/beacon.routes';
import { integrationsRoutes } from './protect/sync/integrations.routes';
import { protectSyncRoutes } from './protect/sync/sync.routes';
import { privacySandboxRoutes } from './privacy-sandbox/privacy-sandbox.routes';
import { erasureRoutes } from './privacy/erasure.routes';
import { sdkRoutes } from './sdk/sdk.routes';
import { settingsRoutes } from './settings/settings.routes';
import { skanRoutes } from './skan/skan.routes';
import { subscriptionsRoutes } from './subscriptions/subscriptions.routes';
import type { Services } from './services';
import { routeTestRoutes } from './smartlinks/route-test.routes';
import { nativeTrackingRoutes } from './tracking/redirect/tracking.routes';
import { uninstallsRoutes } from './uninstalls/uninstalls.routes';

/**
 * Composes every module's routes behind the HTTP rules. One app serves both hosts. Paths match
 * exactly (`/login/` is not `/login`), so the path routed is the path rate-limited; the 405 logic
 * also knows the paths of the routes Bun serves beside it (`native`).
 */
function createApp(services: Services, native: NativeRoutes) {
  const withPool = { ...services, lookupPool: (orgId: string, ip: string) => lookupIp(services, orgId, ip) };
  let routes: readonly { method: string; path: string }[] = [];
  let document: Record<string, unknown> | undefined;
  let served: readonly RouteSource[] = [];
  const { config } = services;
  const app = new Elysia({ strictPath: true }).use(httpPlugin(services, () => routes));
  // Every module, in the order their routes match. Composed in a loop: one typed chain this long
  // passes TypeScript's instantiation depth, and nothing reads the routes' types.
  const modules: AnyElysia[] = [
    healthRoutes(services),
    authRoutes(services),
    keysRoutes(services),
    appsRoutes(services),
    campaignsRoutes(services),
    linksRoutes(services),
    domainsRoutes(services),
    clicksRoutes(services),
    conversionsRoutes(services),
    postbacksRoutes(services),
    costsRoutes(services),
    cohortsRoutes(services),
    fxRatesRoutes(services),
    settingsRoutes(services),
    impressionsRoutes(services),
    tvAiringsRoutes(services),
    sdkRoutes(services),
    beaconRoutes(services),
    skanRoutes(services),
    subscriptionsRoutes(services),
    uninstallsRoutes(services),
    breakdownRoutes(services),
    linkStatsRoutes(services),
    edgeRoutes(services),
    ippoolRoutes(services),
    protectRoutes(services),
    integrationsRoutes(services),
    protectSyncRoutes(services),
    privacySandboxRoutes(services),
    erasureRoutes(services),
    routeTestRoutes(withPool),
    mcpRoutes(withPool),
    realtimeRoutes(services),
    dashboardExportRoutes(services),
    dashboardLinksRoutes(services),
    dashboardAppsRoutes(services),
    assetsRoutes(),
    webRoutes(services),
    // Built on first use, from every route composed here (`served` is complete by then).
    openApiRoutes(() => (document ??= openApiDocument({ version: config.version, baseUrl: config.baseUrl, trackingUrl: config.trackingUrl, routes: served, tracking: TRACKING_ROUTE_DOCS }))),
  ];
  for (const module of modules) app.use(module);
  routes = [...app.routes, ...declaredRoutes(native)];
  served = app.routes as readonly RouteSource[];
  return app;
}

export type App = ReturnType<typeof createApp>;

/** What a node serves: Bun.serve takes `routes` and `fetch`; main.ts and the tests build it here. */
export interface Serving {
  app: App;
  /** GET /c/{slug}, GET /l/{slug} and GET /i/{campaign}, straight from Bun's router to their handlers. */
  routes: ReturnType<typeof nativeTrackingRoutes>;
  /**
   * Everything else, to the app. A request that reaches it without passing Bun's router (one a
   * tracking listener thread forwards, an in-process test's) is routed as that router would.
   */
  fetch(request: Request): Response | Promise<Response>;
}

const NO_SOCKET: PeerSource = { requestIP: () => null };

export function createServing(services: Services): Serving {
  const routes = nativeTrackingRoutes(services);
  const app = createApp(services, routes);
  // The handlers see the socket through the app's server, as the app does (main.ts sets it).
  const fetch = routeInProcess(routes, (request) => app.fetch(request), () => app.server ?? NO_SOCKET);
  return { app, routes, fetch };
}
