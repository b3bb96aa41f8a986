import { Elysia } from 'elysia';
import { authRoutes } from './auth/auth.routes';
import { keysRoutes } from './auth/keys.routes';
import { healthRoutes } from './health/health.routes';
import { httpPlugin } from './http/http.plugin';
import type { Services } from './services';

/** Composes every module's routes behind the HTTP rules. One app serves both hosts. */
export function createApp(services: Services) {
  let routes: readonly { method: string; path: string }[] = [];
  const app = new Elysia()
    .use(httpPlugin(services, () => routes))
    .use(healthRoutes(services))
    .use(authRoutes(services))
    .use(keysRoutes(services));
  routes = app.routes;
  return app;
}

export type App = ReturnType<typeof createApp>;
