import { internalError, SOCKET_BODY_BACKSTOP_BYTES } from './http.plugin';

/**
 * What every socket the service listens on shares (the main server, the tracking listener
 * threads, the forward receiver).
 *
 * Bun.serve runs in development mode unless NODE_ENV is 'production', and `npm start` sets no
 * NODE_ENV. In development mode an error that escapes a handler is answered with Bun's HTML error
 * page, about 50 KB carrying the error's message and stack: a leak on a public port. Off, Bun
 * answers a bare 500; the `error` hook below answers in the spec's Error shape instead. The
 * handlers catch their own errors, so this is the backstop (docs/security.md, HTTP rules).
 */
export const SERVE_OPTIONS = {
  development: false,
  maxRequestBodySize: SOCKET_BODY_BACKSTOP_BYTES,
  error: (error: Error): Response => internalError('http: unhandled error', error),
} as const;
