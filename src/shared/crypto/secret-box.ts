/**
 * Credentials the service must use later but never show again (an ad account's OAuth secrets),
 * sealed with AES-256-GCM under a key derived from SESSION_SECRET. Text format:
 * `v1.<iv>.<ciphertext and tag>`, base64url parts, a random 12-byte IV per seal.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface SecretBox {
  /** `context` (say, the owning row's key) is authenticated, not stored: a sealed value opens only under it. */
  seal(plaintext: string, context: string): string;
  /** Throws SecretBoxError when the value was sealed under another key or context, or was altered. */
  open(sealed: string, context: string): string;
}

export class SecretBoxError extends Error {}

const VERSION = 'v1';
/** Changing the label changes every key: sealed values would no longer open. */
const KEY_INFO = 'svc secret-box v1 aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function createSecretBox(secret: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_INFO, 32));
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, context) {
      const [version, ivText, bodyText, ...rest] = sealed.split('.');
      if (version !== VERSION || rest.length > 0 || !ivText || !bodyText || !BASE64URL.test(ivText) || !BASE64URL.test(bodyText)) {
        throw new SecretBoxError('not a sealed value of this version');
      }
      const iv = Buffer.from(ivText, 'base64url');
      const body = Buffer.from(bodyText, 'base64url');
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SecretBoxError('not a sealed value of this version');
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('the sealed value does not open under this key: SESSION_SECRET changed, or the value was altered');
      }
    },
  };
}
