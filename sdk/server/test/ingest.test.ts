import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { verifyIngestSignature } from '../../../src/auth/ingest-signature';
import { hmacSha256Hex } from '../../../src/shared/crypto/secrets';
import { sdk } from './sdk';

const { signIngestBody } = sdk;

describe('signIngestBody', () => {
  test("is the server's HMAC of the same bytes, and its check accepts it, for any secret and body", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 16, maxLength: 80 }), fc.oneof(fc.string({ unit: 'grapheme' }), fc.uint8Array({ maxLength: 512 })), async (secret, body) => {
        const signature = await signIngestBody(secret, body);
        expect(signature).toMatch(/^[0-9a-f]{64}$/);
        expect(signature).toBe(hmacSha256Hex(secret, body));
        expect(verifyIngestSignature(secret, body, signature)).toBe(true);
      }),
    );
  });

  test('the check refuses it for another secret, another body or in upper case', async () => {
    const body = JSON.stringify({ events: [{ slug: 'spring', click_id: 'edge-0001' }] });
    const signature = await signIngestBody('an-ingest-secret-of-at-least-16-characters', body);
    expect(verifyIngestSignature('another-ingest-secret-of-16-chars', body, signature)).toBe(false);
    expect(verifyIngestSignature('an-ingest-secret-of-at-least-16-characters', `${body} `, signature)).toBe(false);
    expect(verifyIngestSignature('an-ingest-secret-of-at-least-16-characters', body, signature.toUpperCase())).toBe(false);
  });
});
