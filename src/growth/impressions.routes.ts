import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { strictBody } from '../http/strict-body';
import { ImpressionsBody } from './impressions.model';
import { importImpressions, type ImpressionImportDeps } from './impressions.service';

/** Server-to-server impression import (docs/growth-imports.md). */
export function impressionsRoutes(services: AuthDeps & ImpressionImportDeps) {
  return new Elysia({ name: 'impressions-routes' })
    .use(authPlugin(services))
    .post('/api/v1/impressions', ({ body, principal }) => importImpressions(services, principal, body.impressions), {
      apiKey: true,
      body: ImpressionsBody,
      transform: strictBody(ImpressionsBody),
      detail: { summary: 'Import impressions (not idempotent)' },
    });
}
