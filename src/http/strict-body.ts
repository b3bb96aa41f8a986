import type { TSchema } from '@sinclair/typebox';
import { t } from 'elysia';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { toValidationBody, validationError } from './errors';

/**
 * A route `transform` hook that checks the raw JSON body against its TypeBox model before
 * Elysia normalises it. Elysia's normaliser reshapes input to fit the schema first (unknown
 * fields dropped, `[1]` or a text body turned into `{}`, a string spread into an object), so a
 * typo such as `destinaton` or a wrong content type would otherwise pass silently. Here every
 * unknown field and wrong shape is a 400 in the spec's form. A schema may carry an `error`
 * string that replaces TypeBox's generic message (useful on unions: "Expected union value").
 */
export function strictBody(schema: TSchema) {
  return ({ body }: { body: unknown }): void => {
    if (Value.Check(schema, body)) return;
    const issues = [...Value.Errors(schema, body)].map((issue) => {
      if (issue.type === ValueErrorType.ObjectAdditionalProperties) return { path: issue.path, message: 'unknown field' };
      const custom = (issue.schema as { error?: unknown }).error;
      return { path: issue.path, message: typeof custom === 'string' ? custom : issue.message };
    });
    const shaped = toValidationBody(issues);
    throw validationError(shaped.fieldErrors, shaped.formErrors);
  };
}

/**
 * An integer in a JSON body. Elysia's t.Integer also accepts numeric strings ("100"), which
 * suits query strings but lets a body carry the wrong type.
 */
export const WholeNumber = (options: { minimum: number; maximum: number; error?: string }) => t.Number({ ...options, multipleOf: 1 });
