import { Elysia } from 'elysia';
import { payloadTooLarge, validationError } from '../../http/errors';
import { capStream } from '../../http/http.plugin';
import { NOT_JSON, parseJsonBody } from '../../http/json-body';
import { BeaconRequest, BeaconResponse, MAX_BEACON_BYTES } from './beacon.model';
import { recordBeacon, type BeaconDeps } from './beacon.service';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as JSON whatever its Content-Type: navigator.sendBeacon sends a string as
 * `text/plain;charset=UTF-8`, which needs no CORS preflight. Past MAX_BEACON_BYTES it is 413,
 * refused before a byte is read when the declared length says so.
 */
async function readBeaconBody(request: Request): Promise<unknown> {
  const declared = request.headers.get('content-length');
  if (declared !== null && !(Number(declared) <= MAX_BEACON_BYTES)) throw payloadTooLarge();
  const raw = request.body ? new Uint8Array(await new Response(capStream(request.body, MAX_BEACON_BYTES)).arrayBuffer()) : new Uint8Array();
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw validationError({}, [NOT_JSON]);
  }
  const parsed = parseJsonBody(text);
  // Elysia would read an array or a string as an empty object and blame a missing field.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw validationError({}, ['the body must be a JSON object']);
  return parsed;
}

/** For the OpenAPI document: the refusals beside the body check's 400. */
const beaconDetail = () => ({
  summary: "A landing page's behaviour signals, added to the click's risk score",
  responses: { 404: { description: 'click not found' }, 413: { description: `a body above ${MAX_BEACON_BYTES / 1024} KiB` } },
});

/**
 * POST /api/protect/beacon, no credential: the click id is all a landing page holds. CORS,
 * OPTIONS and the per-IP rate limit come from the HTTP rules plugin.
 */
export function beaconRoutes(services: BeaconDeps) {
  const deps: BeaconDeps = { db: services.db, clock: services.clock };
  return new Elysia({ name: 'protect-beacon' }).post(
    '/api/protect/beacon',
    async ({ body }) => {
      await recordBeacon(deps, body);
      return { ok: true };
    },
    { parse: ({ request }) => readBeaconBody(request), body: BeaconRequest, response: { 200: BeaconResponse }, detail: beaconDetail() },
  );
}
