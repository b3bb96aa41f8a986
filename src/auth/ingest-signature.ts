import { constantTimeEqual, hmacSha256Hex } from '../shared/crypto/secrets';

/** Edge ingest: lowercase hex HMAC-SHA256 of the raw body keyed by INGEST_SECRET, compared in constant time. */
export function verifyIngestSignature(secret: string | undefined, rawBody: string | Uint8Array, signature: string | null | undefined): boolean {
  if (!secret || !signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
  return constantTimeEqual(hmacSha256Hex(secret, rawBody), signature);
}
