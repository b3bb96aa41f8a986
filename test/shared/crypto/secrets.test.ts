import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { constantTimeEqual, hmacSha256Hex, randomToken, sha256Hex } from '../../../src/shared/crypto/secrets';

describe('secrets', () => {
  test('randomToken gives exactly `length` base62 characters (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), (length) => {
        const token = randomToken(length);
        return token.length === length && /^[A-Za-z0-9]+$/.test(token);
      }),
    );
  });

  test('randomToken draws every base62 character and does not repeat itself', () => {
    const seen = new Set<string>();
    const tokens = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const token = randomToken(32);
      tokens.add(token);
      for (const char of token) seen.add(char);
    }
    expect(tokens.size).toBe(200);
    expect(seen.size).toBe(62);
  });

  test('constantTimeEqual is string equality (property)', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => constantTimeEqual(a, b) === (a === b)));
    fc.assert(fc.property(fc.string(), (a) => constantTimeEqual(a, a)));
  });

  test('sha256Hex and hmacSha256Hex are lowercase hex digests', () => {
    expect(sha256Hex('abc')).toBe(createHash('sha256').update('abc').digest('hex'));
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // RFC 4231 test case 2.
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});
