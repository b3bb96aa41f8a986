import { describe, expect, test } from 'bun:test';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPLE_ROOT_CA_G3_PATH, appleRootCertificates, certificatesIn } from '../../src/subscriptions/apple-roots';
import { tempDir } from '../support/temp-dir';
import { testAppleCa } from './support';

/** Apple Root CA - G3, SHA-256, as Apple publishes it (https://www.apple.com/certificateauthority/). */
const APPLE_ROOT_CA_G3_SHA256 = '63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179';

describe('Apple roots', () => {
  test('the shipped root is Apple Root CA - G3, byte for byte', () => {
    const der = readFileSync(APPLE_ROOT_CA_G3_PATH);
    expect(createHash('sha256').update(der).digest('hex')).toBe(APPLE_ROOT_CA_G3_SHA256);
    const certificate = new X509Certificate(der);
    expect(certificate.subject).toContain('CN=Apple Root CA - G3');
    expect(certificate.issuer).toBe(certificate.subject);
  });

  test('APPLE_ROOT_CERTS adds PEM files (several blocks each) beside it; DER files read too', () => {
    const first = testAppleCa('First');
    const second = testAppleCa('Second');
    const bundle = join(tempDir('roots'), 'bundle.pem');
    writeFileSync(bundle, readFileSync(first.rootPath, 'utf8') + readFileSync(second.rootPath, 'utf8'));
    const roots = appleRootCertificates([bundle, APPLE_ROOT_CA_G3_PATH]);
    const commonName = (der: Buffer) => new X509Certificate(der).subject.split('\n').find((part) => part.startsWith('CN='));
    expect(roots.map(commonName)).toEqual([
      'CN=Apple Root CA - G3',
      'CN=First Root',
      'CN=Second Root',
      'CN=Apple Root CA - G3',
    ]);
  });

  test('a file holding no certificate is refused with its path', () => {
    const path = join(tempDir('roots'), 'not-a-cert.pem');
    writeFileSync(path, 'hello');
    expect(() => certificatesIn(path)).toThrow(`${path} holds no X.509 certificate`);
  });
});
