import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { SkanPostbackBody, SkanVersion } from '../../src/skan/skan.model';
import { signatureMessage } from '../../src/skan/skan-signature';

type Postback = Record<string, string | number | boolean>;

/**
 * Apple's own example postbacks, signed by Apple's SKAdNetwork key, from its documentation:
 * "Combining parameters for previous SKAdNetwork postback versions" (2.2), "Combining parameters
 * for SKAdNetwork 3 postbacks" (3.0, winning and not) and "Verifying an install-validation
 * postback" (4.0, fine and coarse). Their app-id is Apple's example 525463029.
 */
export const APPLE_EXAMPLES: Record<string, Postback> = {
  '2.2': {
    version: '2.2',
    'ad-network-id': 'com.example',
    'campaign-id': 42,
    'transaction-id': '6aafb7a5-0170-41b5-bbe4-fe71dedf1e28',
    'app-id': 525463029,
    'attribution-signature': 'MEYCIQDTuQ1Z4Tpy9D3aEKbxLl5J5iKiTumcqZikuY/AOD2U7QIhAJAaiAv89AoquHXJffcieEQXdWHpcV8ZgbKN0EwV9/sY',
    redownload: true,
    'source-app-id': 1234567891,
    'fidelity-type': 1,
    'conversion-value': 20,
  },
  '3.0 winning': {
    version: '3.0',
    'ad-network-id': 'example123.skadnetwork',
    'campaign-id': 42,
    'transaction-id': '6aafb7a5-0170-41b5-bbe4-fe71dedf1e28',
    'app-id': 525463029,
    'attribution-signature': 'MEYCIQD5eq3AUlamORiGovqFiHWI4RZT/PrM3VEiXUrsC+M51wIhAPMANZA9c07raZJ64gVaXhB9+9yZj/X6DcNxONdccQij',
    redownload: true,
    'source-app-id': 1234567891,
    'fidelity-type': 1,
    'conversion-value': 20,
    'did-win': true,
  },
  '3.0 not winning': {
    version: '3.0',
    'ad-network-id': 'example123.skadnetwork',
    'campaign-id': 42,
    'transaction-id': 'f9ac267a-a889-44ce-b5f7-0166d11461f0',
    'app-id': 525463029,
    'attribution-signature': 'MEUCIQDDetUtkyc/MiQvVJ5I6HIO1E7l598572Wljot2Onzd4wIgVJLzVcyAV+TXksGNoa0DTMXEPgNPeHCmD4fw1ABXX0g=',
    redownload: true,
    'fidelity-type': 1,
    'did-win': false,
  },
  '4.0 fine': {
    version: '4.0',
    'ad-network-id': 'com.example',
    'source-identifier': '5239',
    'app-id': 525463029,
    'transaction-id': '6aafb7a5-0170-41b5-bbe4-fe71dedf1e30',
    redownload: false,
    'source-domain': 'example.com',
    'fidelity-type': 1,
    'did-win': true,
    'conversion-value': 63,
    'postback-sequence-index': 0,
    'attribution-signature': 'MEUCIGRmSMrqedNu6uaHyhVcifs118R5z/AB6cvRaKrRRHWRAiEAv96ne3dKQ5kJpbsfk4eYiePmrZUU6sQmo+7zfP/1Bxo=',
  },
  '4.0 coarse': {
    version: '4.0',
    'ad-network-id': 'com.example',
    'source-identifier': '39',
    'app-id': 525463029,
    'transaction-id': '6aafb7a5-0170-41b5-bbe4-fe71dedf1e31',
    redownload: false,
    'source-domain': 'example.com',
    'fidelity-type': 1,
    'did-win': true,
    'coarse-conversion-value': 'high',
    'postback-sequence-index': 0,
    'attribution-signature': 'MEUCIQD4rX6eh38qEhuUKHdap345UbmlzA7KEZ1bhWZuYM8MJwIgMnyiiZe6heabDkGwOaKBYrUXQhKtF3P/ERHqkR/XpuA=',
  },
};

export const APPLE_EXAMPLE_APP_ID = '525463029';

/** A P-256 key pair standing in for Apple's in tests: SKAN_PUBLIC_KEY takes its public half. */
export function testSigner() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    publicKey,
    pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    base64: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    /** The postback with the attribution-signature this key makes over its version's fields. */
    sign<T extends Postback>(postback: T): T & { 'attribution-signature': string } {
      return { ...postback, 'attribution-signature': signWith(privateKey, postback) };
    },
  };
}

export function signWith(privateKey: KeyObject, postback: Postback): string {
  const message = signatureMessage(postback as unknown as SkanPostbackBody & { version: SkanVersion });
  return sign('sha256', Buffer.from(message, 'utf8'), privateKey).toString('base64');
}

let serial = 0;
/** A fresh transaction id per call, so postbacks of one test never collide by accident. */
export const transactionId = () => `00000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`;

/** An unsigned 4.0 postback with every field, to be signed by a testSigner. */
export function postback40(overrides: Postback = {}): Postback {
  return {
    version: '4.0',
    'ad-network-id': 'net.example.skadnetwork',
    'source-identifier': '1234',
    'app-id': 987654321,
    'transaction-id': transactionId(),
    redownload: false,
    'source-app-id': 111222333,
    'fidelity-type': 1,
    'did-win': true,
    'conversion-value': 12,
    'postback-sequence-index': 0,
    ...overrides,
  };
}
