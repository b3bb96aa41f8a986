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

/** The spec's error bodies, by their names among the document's components (error-bodies.ts). */
export type ErrorShape = 'ValidationError' | 'Error' | 'RateLimited';

export const errorSchema = (shape: ErrorShape) => ({ $ref: `#/components/schemas/${shape}` });

/** A refusal in one of the spec's error shapes, for `detail.responses`. */
export const refusal = (description: string, shape: ErrorShape) => ({ description, content: { 'application/json': { schema: errorSchema(shape) } } });
