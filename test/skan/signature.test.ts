import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { APPLE_SKAN_PUBLIC_KEY, normaliseSkanPublicKey, skanKeyObject } from '../../src/config/skan-key';
import { SKAN_VERSIONS, type SkanPostbackBody, type SkanVersion } from '../../src/skan/skan.model';
import { SIGNATURE_SEPARATOR, SIGNED_FIELDS, signatureMessage, verifySignature } from '../../src/skan/skan-signature';
import { APPLE_EXAMPLES, testSigner } from './support';

type Postback = Record<string, string | number | boolean>;
const asBody = (postback: Postback) => postback as unknown as SkanPostbackBody & { version: SkanVersion };
const apple = skanKeyObject(APPLE_SKAN_PUBLIC_KEY);

/** Apple's documented orders, written out again here so the module is checked against the docs. */
const DOCUMENTED_ORDER: Record<SkanVersion, string[]> = {
  '2.2': ['version', 'ad-network-id', 'campaign-id', 'app-id', 'transaction-id', 'redownload', 'source-app-id', 'fidelity-type'],
  '3.0': ['version', 'ad-network-id', 'campaign-id', 'app-id', 'transaction-id', 'redownload', 'source-app-id', 'fidelity-type', 'did-win'],
  '4.0': ['version', 'ad-network-id', 'source-identifier', 'app-id', 'transaction-id', 'redownload', 'source-app-id', 'source-domain', 'fidelity-type', 'did-win', 'postback-sequence-index'],
};

describe('SKAdNetwork signatures', () => {
  test("Apple's example postbacks verify against Apple's key, and only against it", () => {
    const other = testSigner().publicKey;
    for (const [name, postback] of Object.entries(APPLE_EXAMPLES)) {
      expect(verifySignature(asBody(postback), apple), name).toBe(true);
      expect(verifySignature(asBody(postback), other), name).toBe(false);
    }
  });

  test("the message of Apple's examples is the documented fields joined by U+2063", () => {
    expect(signatureMessage(asBody(APPLE_EXAMPLES['2.2']!))).toBe(
      ['2.2', 'com.example', '42', '525463029', '6aafb7a5-0170-41b5-bbe4-fe71dedf1e28', 'true', '1234567891', '1'].join('\u2063'),
    );
    expect(signatureMessage(asBody(APPLE_EXAMPLES['3.0 not winning']!))).toBe(
      ['3.0', 'example123.skadnetwork', '42', '525463029', 'f9ac267a-a889-44ce-b5f7-0166d11461f0', 'true', '1', 'false'].join('\u2063'),
    );
    expect(signatureMessage(asBody(APPLE_EXAMPLES['4.0 coarse']!))).toBe(
      ['4.0', 'com.example', '39', '525463029', '6aafb7a5-0170-41b5-bbe4-fe71dedf1e31', 'false', 'example.com', '1', 'true', '0'].join('\u2063'),
    );
  });

  test('each version signs its documented fields in order', () => {
    expect(Object.keys(SIGNED_FIELDS).sort()).toEqual([...SKAN_VERSIONS].sort());
    for (const version of SKAN_VERSIONS) expect([...SIGNED_FIELDS[version]] as string[]).toEqual(DOCUMENTED_ORDER[version]);
  });

  test('a flipped byte, a changed, swapped, added or dropped signed field fails; unsigned fields do not matter', () => {
    for (const [name, example] of Object.entries(APPLE_EXAMPLES)) {
      const signature = example['attribution-signature'] as string;
      const bytes = Buffer.from(signature, 'base64');
      bytes[bytes.length - 5]! ^= 0x01;
      const failing: Postback[] = [
        { ...example, 'attribution-signature': bytes.toString('base64') },
        { ...example, 'transaction-id': `${example['transaction-id']}0` },
        { ...example, 'app-id': 525463030 },
        { ...example, redownload: !example.redownload },
        { ...example, 'fidelity-type': 0 },
        { ...example, version: example.version === '3.0' ? '2.2' : '3.0' },
        { ...example, 'attribution-signature': 'AAAAAAAAAAAAAAAA' },
      ];
      if ('did-win' in example) failing.push({ ...example, 'did-win': !example['did-win'] });
      if ('campaign-id' in example) failing.push({ ...example, 'campaign-id': 43 });
      if ('source-identifier' in example) failing.push({ ...example, 'source-identifier': '5238' });
      if ('source-app-id' in example) {
        const { 'source-app-id': _dropped, ...without } = example;
        failing.push(without);
      } else {
        failing.push({ ...example, 'source-app-id': 1 });
      }
      // The network and the transaction swapped: the same values, in the wrong places.
      failing.push({ ...example, 'ad-network-id': example['transaction-id']!, 'transaction-id': example['ad-network-id']! });
      for (const postback of failing) expect(verifySignature(asBody(postback), apple), `${name}: ${JSON.stringify(postback)}`).toBe(false);
      const unsigned = { ...example, 'conversion-value': 1, 'coarse-conversion-value': 'low', 'country-code': 'US' };
      expect(verifySignature(asBody(unsigned), apple), name).toBe(true);
    }
  });

  test('a postback without a signature never verifies', () => {
    const { 'attribution-signature': _none, ...unsigned } = APPLE_EXAMPLES['4.0 fine']!;
    expect(verifySignature(asBody(unsigned), apple)).toBe(false);
  });

  const token = fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,30}$/);
  const postbackArb = fc
    .record(
      {
        version: fc.constantFrom(...SKAN_VERSIONS),
        'ad-network-id': token,
        'transaction-id': fc.uuid(),
        'campaign-id': fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.stringMatching(/^[0-9]{1,4}$/)),
        'source-identifier': fc.stringMatching(/^[0-9]{2,4}$/),
        'app-id': fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.stringMatching(/^[0-9]{1,12}$/)),
        redownload: fc.boolean(),
        'source-app-id': fc.integer({ min: 0, max: 2 ** 40 }),
        'source-domain': fc.domain(),
        'fidelity-type': fc.integer({ min: 0, max: 1 }),
        'did-win': fc.boolean(),
        'postback-sequence-index': fc.integer({ min: 0, max: 2 }),
        'conversion-value': fc.integer({ min: 0, max: 63 }),
        'coarse-conversion-value': fc.constantFrom('low', 'medium', 'high'),
        extra: fc.string(),
      },
      { requiredKeys: ['version', 'ad-network-id', 'transaction-id'] },
    )
    .map((postback) => postback as Postback);

  test('property: the message is the present signed fields of the version, in its order, whatever the key order', () => {
    fc.assert(
      fc.property(postbackArb, fc.integer(), (postback, seed) => {
        const version = postback.version as SkanVersion;
        const expected = DOCUMENTED_ORDER[version].filter((field) => field in postback).map((field) => String(postback[field]));
        const message = signatureMessage(asBody(postback));
        expect(message.split(SIGNATURE_SEPARATOR)).toEqual(expected);
        const shuffled = Object.fromEntries(Object.entries(postback).sort(([a], [b]) => ((a.length * seed) % 7) - ((b.length * seed) % 7) || a.localeCompare(b)));
        expect(signatureMessage(asBody(shuffled))).toBe(message);
      }),
      { numRuns: 500 },
    );
  });

  test('property: a signature over a postback verifies, and fails once any signed field changes', () => {
    const signer = testSigner();
    fc.assert(
      fc.property(postbackArb, fc.nat(), (postback, pick) => {
        const signed = signer.sign(postback);
        expect(verifySignature(asBody(signed), signer.publicKey)).toBe(true);
        const present = DOCUMENTED_ORDER[postback.version as SkanVersion].filter((field) => field in postback && field !== 'version');
        const field = present[pick % present.length]!;
        const value = signed[field]!;
        const changed = typeof value === 'boolean' ? !value : typeof value === 'number' ? value + 1 : `${value}1`;
        expect(verifySignature(asBody({ ...signed, [field]: changed }), signer.publicKey)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('SKAN public keys', () => {
  const signer = testSigner();

  test('PEM, one-line PEM with \\n escapes and base64 SPKI all read as the same key', () => {
    expect(normaliseSkanPublicKey(APPLE_SKAN_PUBLIC_KEY)).toBe(APPLE_SKAN_PUBLIC_KEY);
    expect(normaliseSkanPublicKey(signer.pem)).toBe(signer.base64);
    expect(normaliseSkanPublicKey(signer.pem.replaceAll('\n', '\\n'))).toBe(signer.base64);
    expect(normaliseSkanPublicKey(signer.base64)).toBe(signer.base64);
  });

  test('anything but a P-256 public key is refused with a reason', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(() => normaliseSkanPublicKey('not a key!')).toThrow('neither a PEM public key nor base64');
    expect(() => normaliseSkanPublicKey('AAAA')).toThrow('not a public key in SPKI form');
    expect(() => normaliseSkanPublicKey(rsa)).toThrow('P-256');
    expect(() => normaliseSkanPublicKey(p384)).toThrow('P-256');
  });
});
