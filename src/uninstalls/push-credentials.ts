/**
 * The push providers' credential files, read and checked once at boot (config.ts) and again when
 * the checker starts. Messages name what is wrong, never the file's contents.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A Google service account, as the JSON file Google issues it (the fields FCM needs). */
export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKeyId: string | null;
  /** PKCS #8 PEM of the RSA key the OAuth assertion is signed with. */
  privateKey: string;
}

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

export function readServiceAccount(path: string): ServiceAccount {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readText(path)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error('is not a JSON file');
    throw error;
  }
  const text = (field: string) => (typeof json[field] === 'string' && json[field] !== '' ? (json[field] as string) : null);
  const projectId = text('project_id');
  const clientEmail = text('client_email');
  const privateKey = text('private_key');
  if (json.type !== 'service_account' || !projectId || !clientEmail || !privateKey) {
    throw new Error('is not a service-account key file (type "service_account" with project_id, client_email and private_key)');
  }
  if (privateKeyOf(privateKey)?.asymmetricKeyType !== 'rsa') throw new Error('holds a private_key that is not an RSA private key');
  return { projectId, clientEmail, privateKeyId: text('private_key_id'), privateKey };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
