import { Type as t } from '@sinclair/typebox';

/**
 * The spec's error bodies (Errors, "Error bodies"), as the OpenAPI document's shared components.
 * TypeBox's own types: Elysia's t.Integer would also admit numeric strings, as a query does.
 */
export const ValidationErrorBody = t.Object({
  error: t.Object({
    formErrors: t.Array(t.String(), { description: 'whole-body issues' }),
    fieldErrors: t.Object({}, { additionalProperties: t.Array(t.String()), description: 'messages per field, named with dots (rows.3.day)' }),
  }),
});

export const ErrorBody = t.Object({ error: t.String({ description: 'a short reason, such as `unauthorized` or `install not found`' }) });

export const RateLimitedBody = t.Object({
  error: t.Literal('rate_limited'),
  retry_after: t.Integer({ minimum: 1, description: 'seconds, as in the Retry-After header' }),
});
