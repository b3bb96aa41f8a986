import { verify, type KeyObject } from 'node:crypto';
import type { SkanPostbackBody, SkanVersion } from './skan.model';

/** Apple joins the signed values with U+2063 INVISIBLE SEPARATOR. */
export const SIGNATURE_SEPARATOR = '\u2063';

/**
 * The fields Apple signs, in its order, per postback version ("Combining parameters for ...
 * postbacks"). Each is joined only when the postback carries it: source-app-id (all versions)
 * and source-domain (4.0) come and go with Apple's privacy thresholds.
 */
export const SIGNED_FIELDS: Readonly<Record<SkanVersion, readonly (keyof SkanPostbackBody)[]>> = {
  '2.2': ['version', 'ad-network-id', 'campaign-id', 'app-id', 'transaction-id', 'redownload', 'source-app-id', 'fidelity-type'],
  '3.0': ['version', 'ad-network-id', 'campaign-id', 'app-id', 'transaction-id', 'redownload', 'source-app-id', 'fidelity-type', 'did-win'],
  '4.0': [
    'version',
    'ad-network-id',
    'source-identifier',
    'app-id',
    'transaction-id',
    'redownload',
    'source-app-id',
    'source-domain',
    'fidelity-type',
    'did-win',
    'postback-sequence-index',
  ],
};

/** Booleans as `true`/`false`, numbers in decimal, strings exactly as sent. */
function signedText(value: string | number | boolean): string {
  return typeof value === 'string' ? value : String(value);
}

/** The UTF-8 string Apple signed for this postback (its version is one of SKAN_VERSIONS). */
export function signatureMessage(postback: SkanPostbackBody & { version: SkanVersion }): string {
  const values: string[] = [];
  for (const field of SIGNED_FIELDS[postback.version]) {
    const value = postback[field];
    if (value !== undefined && value !== null) values.push(signedText(value as string | number | boolean));
  }
  return values.join(SIGNATURE_SEPARATOR);
}

/** ECDSA P-256 with SHA-256 over the message; the signature is base64 DER, as Apple sends it. */
export function verifySignature(postback: SkanPostbackBody & { version: SkanVersion }, key: KeyObject): boolean {
  const signature = postback['attribution-signature'];
  if (signature === undefined) return false;
  try {
    return verify('sha256', Buffer.from(signatureMessage(postback), 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    // Bytes that are not a DER signature at all.
    return false;
  }
}
