import { createPublicKey, type KeyObject } from 'node:crypto';

/**
 * Apple's NIST P-256 public key that signs SKAdNetwork postbacks of versions 2.1 and later, as
 * Apple publishes it in "Verifying an install-validation postback" (base64 SPKI).
 */
export const APPLE_SKAN_PUBLIC_KEY =
  'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEWdp8GPcGqmhgzEFj9Z2nSpQVddayaPe4FMzqM9wib1+aHaaIzoHoLN9zW4K8y4SPykE3YVK3sVqW6Af0lfx3gg==';

const PEM_ARMOUR = /-----(BEGIN|END) PUBLIC KEY-----/g;

/**
 * A P-256 public key given as PEM or as base64 SPKI, in base64 SPKI (what the config carries:
 * plain text crosses to worker threads). Throws a sentence naming what is wrong.
 */
export function normaliseSkanPublicKey(text: string): string {
  // An env file may hold a PEM on one line with its line breaks written as `\n`.
  const base64 = text.replace(PEM_ARMOUR, '').replaceAll('\\n', '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new Error('is neither a PEM public key nor base64');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new Error('is not a public key in SPKI form');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('is not an elliptic-curve P-256 (prime256v1) key');
  }
  return key.export({ format: 'der', type: 'spki' }).toString('base64');
}

/** The KeyObject of a base64 SPKI key checked by normaliseSkanPublicKey. */
export function skanKeyObject(spkiBase64: string): KeyObject {
  return createPublicKey({ key: Buffer.from(spkiBase64, 'base64'), format: 'der', type: 'spki' });
}
