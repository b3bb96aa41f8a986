import { MAX_BODY_BYTES } from '../http/http.plugin';
import { rateLimitGroup } from '../http/rate-limit';
import { isSessionWrite } from '../http/session-writes';
import { errorSchema as ref, refusal } from '../http/documented';

type Json = Record<string, unknown>;

/** What the document knows of a route, and so of the refusals the HTTP rules and Elysia give it. */
export interface RouteFacts {
  method: string;
  path: string;
  /** A JSON body, query or header parameters, or a path parameter model: Elysia checks them (400). */
  validated: boolean;
  authenticated: boolean;
  /** Authenticated by an API key or SDK key, whose own limit may answer 429 (src/auth/key-rate-limit.ts). */
  keyed: boolean;
  /** A web page: without a session it answers a redirect to /login, not a 401. */
  page: boolean;
}

/** `:id` names a stored record of the caller's organization; an unknown or foreign one is a 404. */
const LOOKUP_BY_ID = /\/:id(\/|$)/;

/**
 * Adds the 4XX answers each operation can give (docs/dashboard.md, "API reference"), keeping
 * what the route declares. A 4XX the route declares without a body gets the spec's; its 400,
 * beside the input check's, may have either shape.
 */
export function addStandardResponses(responses: Record<string, Json>, facts: RouteFacts): void {
  for (const [status, response] of Object.entries(responses)) {
    if (!status.startsWith('4') || response.content) continue;
    const schema = status === '400' && facts.validated ? { anyOf: [ref('ValidationError'), ref('Error')] } : ref('Error');
    responses[status] = { ...response, content: { 'application/json': { schema } } };
  }
  if (facts.validated) responses['400'] ??= refusal('validation error; nothing changed', 'ValidationError');
  if (facts.authenticated && !facts.page) responses['401'] ??= refusal('missing, invalid or revoked credential', 'Error');
  if (isSessionWrite(facts.method, facts.path)) {
    responses['403'] ??= refusal('an Origin other than base_url (a cross-site write)', 'Error');
    responses['415'] ??= refusal('a body not declared application/json', 'Error');
  }
  if (LOOKUP_BY_ID.test(facts.path)) responses['404'] ??= refusal("no such record in the caller's organization", 'Error');
  responses['413'] ??= refusal(`a body above ${MAX_BODY_BYTES / 1024 / 1024} MiB; a declared Content-Length above it is refused unread`, 'Error');
  const limit = rateLimitGroup(facts.path);
  const limits = [limit && `${limit.perMinute} a minute per client IP`, facts.keyed && "the key's own limit, when it has one"].filter(Boolean);
  if (limits.length > 0) {
    responses['429'] ??= {
      ...refusal(`rate limited (${limits.join('; ')})`, 'RateLimited'),
      headers: { 'Retry-After': { description: 'seconds until the window ends', schema: { type: 'integer', minimum: 1 } } },
    };
  }
}
