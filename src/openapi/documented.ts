import type { TSchema } from 'elysia';

/**
 * A route's answers for the OpenAPI document, as `detail.responses`: status to a description and
 * the TypeBox model of the JSON body. Documentation only: Elysia does not check or reshape the
 * answer, as it would for `response:`; test/openapi/responses.test.ts checks real answers
 * against these models instead.
 */
export function documented(responses: Record<number, readonly [description: string, schema?: TSchema]>) {
  return {
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, [description, schema]]) => [status, { description, ...(schema ? { content: { 'application/json': { schema } } } : {}) }]),
    ),
  };
}
