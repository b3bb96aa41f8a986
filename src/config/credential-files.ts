/**
 * The push providers' credential files, read and checked once at boot (config.ts) and again when
 * the checker starts. Messages name what is wrong, never the file's contents.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readServiceAccountFile, type ServiceAccount } from '../shared/google-service-account';

export type FcmAccount = ServiceAccount & { projectId: string };

function privateKeyOf(pem: string): KeyObject | null {
  try {
    return createPrivateKey(pem);
  } catch {
    return null;
  }
}

/** The APNs signing key: the `.p8` file Apple issues, a PKCS #8 P-256 private key (ES256). */
export function readApnsKey(path: string): string {
  const pem = readText(path);
  const key = privateKeyOf(pem);
  if (!pem.includes('-----BEGIN PRIVATE KEY-----') || key?.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('is not an APNs .p8 key (a PKCS #8 P-256 private key)');
  }
  return pem;
}

/** FCM's service account: a key file that also names the project messages are sent to. */
export function readFcmAccount(path: string): FcmAccount {
  const account = readServiceAccountFile(path);
  if (!account.projectId) throw new Error('is not a service-account key file (type "service_account" with project_id, client_email and private_key)');
  return { ...account, projectId: account.projectId };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
