import type { components } from './generated/openapi.js';

/** The interface's error bodies: validation (400), a short string (401, 404, ...), rate limited (429). */
export type ErrorBody = components['schemas']['ValidationError'] | components['schemas']['Error'] | components['schemas']['RateLimited'];

/** A call the service answered with anything but success, after the retry rule gave up or did not apply. */
export class ServerApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    /** The parsed JSON body (ErrorBody from the service itself), or the text when it was not JSON. */
    readonly body: ErrorBody | unknown,
  ) {
    super(`${method} ${path} answered ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.name = 'ServerApiError';
  }
}

/** A body as JSON when it is JSON, else its text (a proxy's HTML error page), null when empty. */
export function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
