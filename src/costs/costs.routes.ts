import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { strictBody } from '../http/strict-body';
import { documented } from '../http/documented';
import { CostsBody, CostsResultBody } from './costs.model';
import { importCosts } from './costs.service';

/** Daily cost import (docs/costs.md). */
export function costsRoutes(services: AuthDeps) {
  return new Elysia({ name: 'costs-routes' })
    .use(authPlugin(services))
    .post('/api/v1/costs', ({ body, principal }) => importCosts(services, principal, body.rows), {
      apiKey: true,
      body: CostsBody,
      transform: strictBody(CostsBody),
      detail: { summary: 'Import daily costs per campaign', ...documented({ 200: ['rows upserted on campaign plus day', CostsResultBody] }) },
    });
}
