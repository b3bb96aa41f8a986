import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { strictBody } from '../http/strict-body';
import { documented } from '../http/documented';
import { RouteTestBody, RouteTestResultBody } from './route-test.model';
import { testRoute, type RouteTestDeps } from './route-test.service';

/** The dashboard's route test: session only, records nothing. */
export function routeTestRoutes(deps: AuthDeps & RouteTestDeps) {
  return new Elysia({ name: 'smartlinks-route-test' })
    .use(authPlugin(deps))
    .post('/api/dashboard/route-test', ({ body, session }) => testRoute(deps, session.orgId, body), {
      // A simulation that stores nothing: analysts may run it.
      session: 'any-role',
      body: RouteTestBody,
      transform: strictBody(RouteTestBody),
      detail: { summary: "Test a smart link's routing for a given visitor (records nothing)", ...documented({ 200: ['the facts, the decision and the IP pool lookup', RouteTestResultBody], 404: ['no smart link with that slug in this organization'] }) },
    });
}
