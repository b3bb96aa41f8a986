import { Elysia } from 'elysia';
import { httpPlugin, type HttpDeps } from '../../src/http/http.plugin';
import { memoryRateLimiter } from '../../src/http/rate-limit';

/**
 * A fresh Elysia instance behind the real HTTP rules, for routes that exist only in a test
 * (a handler that throws, a slow body reader ...). The production app gets no test routes.
 */
export function behindHttpRules(deps: Partial<HttpDeps> = {}) {
  let routes: readonly { method: string; path: string }[] = [];
  const rules = httpPlugin(
    { config: { trustProxy: 0, trustedProxies: undefined, rateLimit: false, baseUrl: 'http://api.test.local', ...deps.config }, rateLimiter: deps.rateLimiter ?? memoryRateLimiter() },
    () => routes,
  );
  return {
    base: new Elysia().use(rules),
    /** Call once the routes are added, so 405 knows them. */
    seal<A extends { routes: readonly { method: string; path: string }[]; handle(request: Request): Promise<Response> }>(app: A) {
      routes = app.routes;
      return (path: string, init: RequestInit & { json?: unknown } = {}) => {
        const { json, ...rest } = init;
        const headers = new Headers(rest.headers);
        if (json !== undefined) headers.set('content-type', 'application/json');
        const url = path.startsWith('http') ? path : `http://api.test.local${path}`;
        return app.handle(new Request(url, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body }));
      };
    },
  };
}
