import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { verifyIngestSignature } from '../../src/auth/ingest-signature';

const secretArb = fc.string({ minLength: 16, maxLength: 64 });
const bodyArb = fc.oneof(fc.string({ maxLength: 2000 }), fc.uint8Array({ maxLength: 2000 }));
/** What an edge worker computes: lowercase hex HMAC-SHA256 of the raw body. */
const sign = (secret: string, body: string | Uint8Array) => createHmac('sha256', secret).update(body).digest('hex');

describe('ingest signature (property-based)', () => {
  test('a correct signature always verifies', () => {
    fc.assert(fc.property(secretArb, bodyArb, (secret, body) => verifyIngestSignature(secret, body, sign(secret, body))));
  });

  test('any change to the body fails', () => {
    fc.assert(
      fc.property(secretArb, fc.uint8Array({ minLength: 1, maxLength: 500 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (secret, body, at, flip) => {
        const changed = Uint8Array.from(body);
        changed[at % body.length]! ^= flip;
        return !verifyIngestSignature(secret, changed, sign(secret, body));
      }),
    );
  });

  test('appending to or truncating the body fails', () => {
    fc.assert(
      fc.property(secretArb, fc.string({ minLength: 1, maxLength: 500 }), fc.string({ minLength: 1, maxLength: 20 }), (secret, body, extra) => {
        const signature = sign(secret, body);
        return !verifyIngestSignature(secret, body + extra, signature) && !verifyIngestSignature(secret, body.slice(0, -1), signature);
      }),
    );
  });

  test('any change to the signature fails', () => {
    fc.assert(
      fc.property(secretArb, bodyArb, fc.nat({ max: 63 }), fc.constantFrom(...'0123456789abcdef'), (secret, body, at, digit) => {
        const signature = sign(secret, body);
        fc.pre(signature[at] !== digit);
        const changed = signature.slice(0, at) + digit + signature.slice(at + 1);
        return !verifyIngestSignature(secret, body, changed);
      }),
    );
  });

  test('a signature made with another secret fails', () => {
    fc.assert(
      fc.property(secretArb, secretArb, bodyArb, (secret, other, body) => {
        fc.pre(secret !== other);
        return !verifyIngestSignature(secret, body, sign(other, body));
      }),
    );
  });

  test('uppercase hex fails, even though it names the same bytes', () => {
    fc.assert(
      fc.property(secretArb, bodyArb, (secret, body) => {
        const signature = sign(secret, body);
        fc.pre(/[a-f]/.test(signature));
        return !verifyIngestSignature(secret, body, signature.toUpperCase());
      }),
    );
  });

  test('truncated, padded, prefixed or non-hex signatures fail', () => {
    fc.assert(
      fc.property(secretArb, bodyArb, (secret, body) => {
        const signature = sign(secret, body);
        return [signature.slice(0, 63), `${signature}0`, `sha256=${signature}`, ` ${signature}`, signature.replace(/.$/, 'g'), ''].every(
          (bad) => !verifyIngestSignature(secret, body, bad),
        );
      }),
    );
  });

  test('without a configured secret nothing verifies', () => {
    expect(verifyIngestSignature(undefined, 'body', sign('x'.repeat(16), 'body'))).toBe(false);
    expect(verifyIngestSignature('', 'body', sign('', 'body'))).toBe(false);
    expect(verifyIngestSignature('x'.repeat(16), 'body', null)).toBe(false);
  });

  test('string and byte forms of the same body agree', () => {
    fc.assert(
      fc.property(secretArb, fc.string({ maxLength: 500 }), (secret, body) =>
        verifyIngestSignature(secret, new TextEncoder().encode(body), sign(secret, body)),
      ),
    );
  });
});
