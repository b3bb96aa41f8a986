import { Value } from '@sinclair/typebox/value';
import { fieldError } from '../http/errors';
import { eventKeyPiece, hash64Decimal, type Measure } from './key-pieces';
import { TriggerRegistration, type RegisterTriggerQuery } from './privacy-sandbox.model';
import { normaliseEvent, triggerDataOf } from './trigger-data';

/**
 * GET register-trigger: the header for a conversion (docs/privacy-sandbox.md, "Register a
 * trigger"). Nothing is stored: the browser matches the trigger to its sources and reports later.
 */

/** The API's L1 budget: what one source's contributions may add up to, over its whole life. */
export const AGGREGATABLE_BUDGET = 65536;
/** A conversion without a value counts this much, so four fit in one source's budget. */
export const COUNT_CONTRIBUTION = 16384;
/** A value is multiplied by this (a sum reads back divided by it): 1/32 of a unit resolves. */
export const VALUE_SCALE = 32;
/** One valued conversion takes at most half the budget: values above 1024 units are capped. */
export const MAX_VALUE_CONTRIBUTION = AGGREGATABLE_BUDGET / 2;

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export interface TriggerInput {
  event: string;
  value: number | null;
}

/** The query as a trigger; `value` that is not a non-negative decimal number is a 400. Empty parameters count as absent. */
export function parseTriggerQuery(query: RegisterTriggerQuery): TriggerInput {
  const text = query.value === '' ? undefined : query.value;
  let value: number | null = null;
  if (text !== undefined) {
    value = DECIMAL.test(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(value)) throw fieldError('value', 'must be a number');
    if (value < 0) throw fieldError('value', 'must not be negative');
  }
  return { event: normaliseEvent(query.event === '' ? undefined : query.event), value };
}

/** The budget a conversion takes: a count, or its value scaled to an integer, at least 1. */
export function contributionOf(value: number | null): { measure: Measure; amount: number } {
  if (value === null) return { measure: 'count', amount: COUNT_CONTRIBUTION };
  return { measure: 'value', amount: Math.min(MAX_VALUE_CONTRIBUTION, Math.max(1, Math.round(value * VALUE_SCALE))) };
}

/** The header's JSON, checked against its schema: a malformed header would be dropped whole by the browser. */
export function triggerRegistration(input: TriggerInput): TriggerRegistration {
  const { measure, amount } = contributionOf(input.value);
  const registration: TriggerRegistration = {
    event_trigger_data: [
      {
        trigger_data: String(triggerDataOf(input.event)),
        // The same event with the same value reported again for one source (a reloaded thank-you page) counts once.
        deduplication_key: hash64Decimal(`${input.event}\n${input.value ?? ''}`),
      },
    ],
    aggregatable_trigger_data: [{ key_piece: eventKeyPiece(measure, input.event), source_keys: ['campaign'] }],
    aggregatable_values: { campaign: amount },
  };
  if (!Value.Check(TriggerRegistration, registration)) throw new Error('register-trigger: the header does not match its schema');
  return registration;
}
