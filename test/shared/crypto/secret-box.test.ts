import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createSecretBox, SecretBoxError } from '../../../src/shared/crypto/secret-box';

const SECRET = 'test-session-secret-that-is-long-enough-0123456789';
const box = createSecretBox(SECRET);
const CONTEXT = 'ad_integrations:org1:google_ads';

/** The sealed text with one bit of its decoded part `index` (1 = IV, 2 = ciphertext and tag) flipped at `at`. */
function flipBit(sealed: string, index: 1 | 2, at: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[at % bytes.length]! ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('secret box', () => {
  test('happy: what is sealed opens to the same text, in the versioned format', () => {
    const plain = JSON.stringify({ refresh_token: '1//0g-refresh', client_secret: 'GOCSPX-secret', note: 'ünïcødé ✓' });
    const sealed = box.seal(plain, CONTEXT);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('refresh');
    expect(box.open(sealed, CONTEXT)).toBe(plain);
    // Another box from the same secret (another node, a restart) opens it too.
    expect(createSecretBox(SECRET).open(sealed, CONTEXT)).toBe(plain);
  });

  test('happy: every seal draws a fresh IV, so one text never seals to the same value twice', () => {
    const seen = new Set(Array.from({ length: 50 }, () => box.seal('same', CONTEXT)));
    expect(seen.size).toBe(50);
    expect(new Set([...seen].map((sealed) => sealed.split('.')[1])).size).toBe(50);
  });

  test('happy: any text round-trips (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ maxLength: 40 }), (plain, context) => box.open(box.seal(plain, context), context) === plain));
  });

  test('error: a value altered anywhere (IV, ciphertext, tag) does not open', () => {
    const sealed = box.seal('developer-token-value', CONTEXT);
    const bodyLength = Buffer.from(sealed.split('.')[2]!, 'base64url').length;
    for (let at = 0; at < 12; at += 1) expect(() => box.open(flipBit(sealed, 1, at), CONTEXT)).toThrow(SecretBoxError);
    for (let at = 0; at < bodyLength; at += 1) expect(() => box.open(flipBit(sealed, 2, at), CONTEXT)).toThrow(SecretBoxError);
  });

  test('error: another key does not open it, and says why', () => {
    const sealed = box.seal('client-secret', CONTEXT);
    const other = createSecretBox('another-session-secret-that-is-long-enough-98765');
    expect(() => other.open(sealed, CONTEXT)).toThrow('SESSION_SECRET changed');
  });

  test('security: a value sealed for one row does not open as another row’s', () => {
    const sealed = box.seal('refresh-token-of-org1', CONTEXT);
    expect(() => box.open(sealed, 'ad_integrations:org2:google_ads')).toThrow(SecretBoxError);
  });

  test('error: malformed values are refused before any decryption', () => {
    const sealed = box.seal('x', CONTEXT);
    const [, iv, body] = sealed.split('.');
    for (const bad of ['', 'plain text', `v2.${iv}.${body}`, `v1.${iv}`, `v1.${iv}.${body}.extra`, `v1.${iv}.${body}=`, `v1.AAAA.${body}`, `v1.${iv}.AAAA`, `v1..${body}`]) {
      expect(() => box.open(bad, CONTEXT)).toThrow(SecretBoxError);
    }
  });
});
