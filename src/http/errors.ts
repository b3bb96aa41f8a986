/**
 * Errors in the spec's shapes. Handlers throw these; the error plugin turns them into bodies:
 * validation -> 400 {error: {formErrors, fieldErrors}}, everything else -> {error: '<short string>'}.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.error === 'string' ? body.error : `http ${status}`);
  }
}

export interface ValidationBody {
  formErrors: string[];
  fieldErrors: Record<string, string[]>;
}

export function validationError(fieldErrors: Record<string, string[]> = {}, formErrors: string[] = []): HttpError {
  return new HttpError(400, { error: { formErrors, fieldErrors } satisfies ValidationBody });
}

/** A 400 for one field, e.g. fieldError('destination', 'must be an absolute http(s) URL'). */
export function fieldError(field: string, message: string): HttpError {
  return validationError({ [field]: [message] });
}

export const badRequest = (message: string) => new HttpError(400, { error: message });
export const unauthorized = () => new HttpError(401, { error: 'unauthorized' });
export const forbidden = (message = 'forbidden') => new HttpError(403, { error: message });
export const notFound = (what = 'not found') => new HttpError(404, { error: what });
export const conflict = (message: string) => new HttpError(409, { error: message });
export const gone = (message = 'gone') => new HttpError(410, { error: message });
export const payloadTooLarge = () => new HttpError(413, { error: 'payload too large' });
export const unsupportedMediaType = () => new HttpError(415, { error: 'unsupported media type' });
export const rateLimited = (retryAfter: number) =>
  new HttpError(429, { error: 'rate_limited', retry_after: retryAfter }, { 'Retry-After': String(retryAfter) });

/**
 * Elysia reports TypeBox issues with JSON-pointer paths; the spec names fields with dots (rows.3.day).
 * `fieldErrors` has no prototype: a field may be named `__proto__`, `constructor` or `toString`.
 */
export function toValidationBody(issues: readonly { path: string; message: string }[]): ValidationBody {
  const body: ValidationBody = { formErrors: [], fieldErrors: Object.create(null) };
  for (const issue of issues) {
    const field = issue.path.replace(/^\//, '').replaceAll('/', '.');
    if (!field) {
      if (!body.formErrors.includes(issue.message)) body.formErrors.push(issue.message);
      continue;
    }
    const messages = (body.fieldErrors[field] ??= []);
    if (!messages.includes(issue.message)) messages.push(issue.message);
  }
  return body;
}
