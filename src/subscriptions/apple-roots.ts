/**
 * The roots App Store notifications must chain to: Apple Root CA - G3, shipped in certs/ (a public
 * certificate, fingerprint checked by test/subscriptions/apple-roots.test.ts), plus the files
 * APPLE_ROOT_CERTS names. Read once at boot; a file that holds no certificate stops the boot.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const APPLE_ROOT_CA_G3_PATH = join(import.meta.dir, 'certs', 'AppleRootCA-G3.cer');

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The DER certificates in a file: PEM (one or more blocks) or one DER certificate. */
export function certificatesIn(path: string): Buffer[] {
  const bytes = readFileSync(path);
  const blocks = bytes.toString('latin1').match(PEM_BLOCK);
  try {
    return blocks ? blocks.map((block) => new X509Certificate(block).raw) : [new X509Certificate(bytes).raw];
  } catch (error) {
    throw new Error(`${path} holds no X.509 certificate: ${(error as Error).message}`);
  }
}

export function appleRootCertificates(extraPaths: readonly string[]): Buffer[] {
  return [APPLE_ROOT_CA_G3_PATH, ...extraPaths].flatMap(certificatesIn);
}
