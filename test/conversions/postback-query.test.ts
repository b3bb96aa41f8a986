import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { parsePostbackQuery } from '../../src/conversions/conversions.service';
import { HttpError } from '../../src/http/errors';
import { MAX_AMOUNT } from '../../src/http/strict-body';

/** The field errors a query gets, or null when it is accepted. */
function fieldErrorsOf(query: Record<string, string>): Record<string, string[]> | null {
  try {
    parsePostbackQuery(query);
    return null;
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 400) throw error;
    return (error.body.error as { fieldErrors: Record<string, string[]> }).fieldErrors;
  }
}

describe('parsePostbackQuery', () => {
  test('any number from 0 to the largest amount, however written, becomes that number', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: MAX_AMOUNT, noNaN: true, noDefaultInfinity: true }), fc.boolean(), (value, exponent) => {
        const text = exponent ? value.toExponential() : String(value);
        const parsed = parsePostbackQuery({ click_id: 'abcd', value: text });
        expect(parsed.value).toBe(Number(text));
      }),
    );
  });

  test('amounts past the largest are refused on value, however written', () => {
    fc.assert(
      fc.property(fc.double({ min: MAX_AMOUNT * (1 + Number.EPSILON * 2), max: 1e300, noNaN: true }), fc.boolean(), (value, exponent) => {
        const text = exponent ? value.toExponential() : String(value);
        fc.pre(Number(text) > MAX_AMOUNT);
        expect(fieldErrorsOf({ click_id: 'abcd', value: text })).toEqual({ value: [`must be a number from 0 to ${MAX_AMOUNT}`] });
      }),
    );
  });

  test('negative numbers are refused on value', () => {
    fc.assert(
      fc.property(fc.double({ max: -Number.MIN_VALUE, min: -1e300, noNaN: true }), (value) => {
        expect(Object.keys(fieldErrorsOf({ click_id: 'abcd', value: String(value) }) ?? {})).toEqual(['value']);
      }),
    );
  });

  test('text that is not a decimal number is refused on value, never coerced', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }), (text) => {
        fc.pre(!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text));
        expect(Object.keys(fieldErrorsOf({ click_id: 'abcd', value: text }) ?? {})).toEqual(['value']);
      }),
    );
  });

  test('empty parameters are absent; the rest keep their text', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 4, maxLength: 64 }), fc.string({ minLength: 1, maxLength: 128 }), (clickId, orderId) => {
        const parsed = parsePostbackQuery({ click_id: clickId, order_id: orderId, event: '', value: '', currency: '', gclid: '' });
        expect(parsed).toEqual({ click_id: clickId, order_id: orderId });
      }),
    );
  });

  test('every broken rule is reported at once', () => {
    expect(Object.keys(fieldErrorsOf({ value: 'x', currency: 'us', event: 'e'.repeat(65) }) ?? {}).sort()).toEqual(['click_id', 'currency', 'event', 'gclid', 'value']);
  });
});
