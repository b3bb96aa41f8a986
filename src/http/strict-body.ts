import type { TSchema } from '@sinclair/typebox';
import { t } from 'elysia';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { toValidationBody, validationError } from './errors';

/**
 * A route `transform` hook that checks the raw JSON body against its TypeBox model before Elysia's
 * normaliser reshapes it (unknown fields dropped, `[1]` turned into `{}`), so a typo such as
 * `destinaton` is a 400. A schema's `error` string replaces TypeBox's generic message.
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

/**
 * The largest amount of money a body may carry in any currency unit: far past any real sale, cost
 * or revenue, and still a whole number a double holds exactly, so sums stay true. Without a bound
 * 1e300 would be stored and every report summing it would read as nonsense.
 */
export const MAX_AMOUNT = 1e15;

/** An amount of money in a body: 0 to MAX_AMOUNT, or -MAX_AMOUNT to MAX_AMOUNT when it may be negative (a refund). */
export const Amount = (options: { signed?: boolean; description?: string } = {}) => {
  const minimum = options.signed ? -MAX_AMOUNT : 0;
  return t.Number({ minimum, maximum: MAX_AMOUNT, error: `must be a number from ${minimum} to ${MAX_AMOUNT}`, ...(options.description ? { description: options.description } : {}) });
};
