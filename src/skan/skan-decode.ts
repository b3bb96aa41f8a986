import type { DecodedPostback, SkanPostbackBody, SkanVersion } from './skan.model';

const text = (value: string | number | undefined): string | null => (value === undefined ? null : String(value));

/**
 * The stored reading of a postback. The campaign number is `source-identifier` in 4.0 and
 * `campaign-id` before it; another version's field stays in `raw` only.
 */
export function decodePostback(body: SkanPostbackBody & { version: SkanVersion }): DecodedPostback {
  return {
    transactionId: body['transaction-id'],
    version: body.version,
    adNetworkId: body['ad-network-id'],
    appStoreId: text(body['app-id']),
    sourceIdentifier: text(body.version === '4.0' ? body['source-identifier'] : body['campaign-id']),
    sourceAppId: text(body['source-app-id']),
    sourceDomain: body['source-domain'] ?? null,
    conversionValue: body['conversion-value'] ?? null,
    coarseConversionValue: body['coarse-conversion-value'] ?? null,
    postbackSequenceIndex: body['postback-sequence-index'] ?? null,
    fidelityType: body['fidelity-type'] ?? null,
    didWin: body['did-win'] ?? null,
    redownload: body.redownload ?? null,
  };
}

/** A campaign's skan_source_identifier matches when it leaves `value` modulo `modulus`. */
export interface SourceIdentifierMatch {
  value: number;
  modulus: number;
}

/**
 * How the decoded identifier names a campaign (skan_source_identifier, 0 to 9999). A 4.0
 * source identifier below Apple's top privacy tier carries only its last two or three digits,
 * so it matches every campaign ending in them; a full one, or a 2.2/3.0 campaign-id, is exact.
 */
export function sourceIdentifierMatch(decoded: Pick<DecodedPostback, 'version' | 'sourceIdentifier'>): SourceIdentifierMatch | null {
  const digits = decoded.sourceIdentifier;
  if (digits === null) return null;
  const truncated = decoded.version === '4.0' && digits.length < 4;
  return { value: Number(digits), modulus: truncated ? 10 ** digits.length : 10_000 };
}

/** App Store ids compare as numbers written without leading zeros. */
export function canonicalAppStoreId(id: string): string {
  return id.replace(/^0+(?=[0-9])/, '');
}
