import { Elysia } from 'elysia';
import { appsRoutes } from './apps/apps.routes';
import { authRoutes } from './auth/auth.routes';
import { keysRoutes } from './auth/keys.routes';
import { campaignsRoutes } from './campaigns/campaigns.routes';
import { clicksRoutes } from './clicks/clicks.routes';
import { conversionsRoutes } from './conversions/conversions.routes';
import { costsRoutes } from './costs/costs.routes';
import { domainsRoutes } from './domains/domains.routes';
import { postbacksRoutes } from './postbacks/postbacks.routes';
import { healthRoutes } from './health/health.routes';
import { httpPlugin } from './http/http.plugin';
import { linksRoutes } from './links/links.routes';
import { sdkRoutes } from './sdk/sdk.routes';
import type { Services } from './services';
import { trackingRoutes } from './tracking/tracking.routes';

/**
 * Composes every module's routes behind the HTTP rules. One app serves both hosts. Paths match
 * exactly (`/login/` is not `/login`), so the path routed is the path rate-limited (docs/security.md).
 */
export function createApp(services: Services) {
  let routes: readonly { method: string; path: string }[] = [];
  const app = new Elysia({ strictPath: true })
    .use(httpPlugin(services, () => routes))
    .use(healthRoutes(services))
    .use(trackingRoutes(services))
    .use(authRoutes(services))
    .use(keysRoutes(services))
    .use(appsRoutes(services))
    .use(campaignsRoutes(services))
    .use(linksRoutes(services))
    .use(domainsRoutes(services))
    .use(clicksRoutes(services))
    .use(conversionsRoutes(services))
    .use(postbacksRoutes(services))
    .use(costsRoutes(services))
    .use(sdkRoutes(services));
  routes = app.routes;
  return app;
}

export type App = ReturnType<typeof createApp>;
