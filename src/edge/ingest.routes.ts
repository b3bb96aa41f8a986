import { Elysia } from 'elysia';
import { verifyIngestSignature } from '../auth/ingest-signature';
import type { Config } from '../config/config';
import { unauthorized, validationError } from '../http/errors';
import { NOT_JSON, parseJsonBody } from '../http/json-body';
import { strictBody } from '../http/strict-body';
import { documented } from '../http/documented';
import { IngestBody, IngestResultBody } from './ingest.model';
import { ingestClicks, type IngestDeps } from './ingest.service';

export const SIGNATURE_HEADER = 'x-svc-signature';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * POST /api/ingest/clicks. The signature covers the body's bytes as sent, so they are read raw
 * (under the app's body size limit) and verified before any JSON is parsed.
 */
export type IngestRoutesDeps = Omit<IngestDeps, 'trackingHost'> & { config: Pick<Config, 'ingestSecret' | 'trackingHost'> };

export function ingestRoutes(deps: IngestRoutesDeps) {
  const ingest: IngestDeps = { ...deps, trackingHost: deps.config.trackingHost };
  return new Elysia({ name: 'edge-ingest' }).post('/api/ingest/clicks', ({ body }) => ingestClicks(ingest, body.events), {
    parse: async ({ request }) => {
      const raw = new Uint8Array(await request.arrayBuffer());
      if (!verifyIngestSignature(deps.config.ingestSecret, raw, request.headers.get(SIGNATURE_HEADER))) throw unauthorized();
      let text: string;
      try {
        text = utf8.decode(raw);
      } catch {
        throw validationError({}, [NOT_JSON]);
      }
      return parseJsonBody(text);
    },
    body: IngestBody,
    transform: strictBody(IngestBody),
    detail: { summary: 'Clicks an edge worker answered, signed with the ingest secret', security: [{ ingestSignature: [] }], ...documented({ 200: ['rows journaled, and those refused', IngestResultBody] }) },
  });
}
