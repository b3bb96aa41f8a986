import { forbidden, type HttpError, unsupportedMediaType } from './errors';
import { mediaTypeOf } from './media-type';

/**
 * The rule for writes a session cookie can authenticate (docs/security.md, "Cross-site writes"):
 * sign-in and sign-out, and every route under /api/dashboard/ and /api/protect/sync, present
 * and future, because the http plugin applies it by path before routing.
 */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SESSION_PATHS = new Set(['/login', '/register', '/logout', '/api/protect/sync']);

export function isSessionWrite(method: string, path: string): boolean {
  return WRITE_METHODS.has(method) && (SESSION_PATHS.has(path) || path.startsWith('/api/dashboard/'));
}

/**
 * Why a session write is refused, if it is: a foreign Origin, `null` included, is 403 (browsers send
 * Origin on every cross-origin write, so none means no other site's page); a body not declared JSON
 * is 415, which a cross-site form cannot avoid. A request without a body needs no Content-Type.
 */
export function sessionWriteRefusal(request: Request, allowedOrigin: string): HttpError | undefined {
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== allowedOrigin) return forbidden();
  const type = request.headers.get('content-type');
  if (type === null) return request.body === null ? undefined : unsupportedMediaType();
  return mediaTypeOf(type) === 'application/json' ? undefined : unsupportedMediaType();
}
