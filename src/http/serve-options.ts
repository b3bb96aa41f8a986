import { internalError, SOCKET_BODY_BACKSTOP_BYTES } from './http.plugin';

/**
 * What every socket the service listens on shares. Bun.serve is in development mode unless
 * NODE_ENV is 'production', and there answers an escaped error with a page holding its stack;
 * here it is the spec's bare 500, a backstop behind the handlers (docs/http-rules.md, "HTTP rules").
 */
export const SERVE_OPTIONS = {
  development: false,
  maxRequestBodySize: SOCKET_BODY_BACKSTOP_BYTES,
  error: (error: Error): Response => internalError('http: unhandled error', error),
} as const;
