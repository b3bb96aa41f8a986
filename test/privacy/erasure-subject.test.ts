import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { HttpError } from '../../src/http/errors';
import { MAX_IP_RANGE_DAYS } from '../../src/privacy/erasure.model';
import { daysOf, parseSubject, subjectKey } from '../../src/privacy/erasure-subject';
import { deviceIdHash } from '../../src/sdk/device-id';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const rejects = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof HttpError && error.status === 400 && typeof error.body.error === 'object';
  }
  return false;
};

describe('parseSubject', () => {
  test('a device id is hashed as installs hash it; one of its spellings is one subject', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 120 }).filter((s) => s.trim() !== ''), (raw) => {
        const subject = parseSubject({ device_id: raw });
        expect(subject).toEqual({ kind: 'device_id', value: deviceIdHash(raw) });
        expect(parseSubject({ device_id: ` ${raw} ` })).toEqual(subject);
      }),
    );
  });

  test('any two subject fields, or none, is a 400 with a form error', () => {
    const field = fc.constantFrom('device_id', 'advertising_id', 'install_id', 'click_id', 'ip');
    fc.assert(
      fc.property(fc.uniqueArray(field, { minLength: 2, maxLength: 5 }), (fields) => {
        expect(rejects(() => parseSubject(Object.fromEntries(fields.map((f) => [f, 'abcdefgh1234'])) as never))).toBe(true);
      }),
    );
    expect(rejects(() => parseSubject({}))).toBe(true);
  });

  test('an address with any valid range is accepted in its canonical spelling; a range past the cap or backwards is refused', () => {
    const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(fc.ipV4(), day, fc.integer({ min: -5, max: MAX_IP_RANGE_DAYS + 5 }), (ip, from, length) => {
        const to = new Date(Date.parse(`${from}T00:00:00Z`) + (length - 1) * 86_400_000).toISOString().slice(0, 10);
        if (length < 1 || length > MAX_IP_RANGE_DAYS) {
          expect(rejects(() => parseSubject({ ip, from, to }))).toBe(true);
          return;
        }
        const subject = parseSubject({ ip: `::ffff:${ip}`, from, to });
        expect(subject).toEqual({ kind: 'ip', value: ip, fromDay: from, toDay: to });
        expect(daysOf(subject as Extract<typeof subject, { kind: 'ip' }>)).toHaveLength(length);
      }),
    );
  });

  test('a string that is not an address is refused', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 2, maxLength: 40 }).filter((s) => !/^[0-9a-fA-F:.]+$/.test(s.trim())), (ip) => {
        expect(rejects(() => parseSubject({ ip, from: '2026-01-01', to: '2026-01-01' }))).toBe(true);
      }),
    );
  });
});

describe('subjectKey', () => {
  test('the same subject in the same scope is one key; another scope, range or secret is another', () => {
    const subject = parseSubject({ ip: '192.0.2.1', from: '2026-01-01', to: '2026-01-02' });
    const key = subjectKey(SECRET, subject, null);
    expect(subjectKey(SECRET, parseSubject({ ip: '192.0.2.1', from: '2026-01-01', to: '2026-01-02' }), null)).toBe(key);
    expect(subjectKey(SECRET, subject, 'app-1')).not.toBe(key);
    expect(subjectKey(SECRET, parseSubject({ ip: '192.0.2.1', from: '2026-01-01', to: '2026-01-03' }), null)).not.toBe(key);
    expect(subjectKey(`${SECRET}x`, subject, null)).not.toBe(key);
    expect(key).not.toContain('192.0.2.1');
  });
});
