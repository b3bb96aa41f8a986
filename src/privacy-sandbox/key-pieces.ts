/**
 * The numbers the registration headers carry (docs/privacy-sandbox.md, "Aggregation keys"). A
 * bucket is 128 bits: the source's campaign piece fills the high 64, the trigger's event piece
 * the low 64, so the browser's OR of the two keeps both readable.
 */

const HALF_ZERO = '0'.repeat(16);

/** The first 64 bits of SHA-256(`text`) as 16 lowercase hex digits. */
export function hash64Hex(text: string): string {
  return new Bun.CryptoHasher('sha256').update(text).digest('hex').slice(0, 16);
}

/** The first 64 bits of SHA-256(`text`) as an unsigned decimal, the API's uint64 string form. */
export function hash64Decimal(text: string): string {
  return BigInt(`0x${hash64Hex(text)}`).toString();
}

/** The `campaign` aggregation key of a source: the campaign id's hash in the high half. */
export function campaignKeyPiece(campaignId: string): string {
  return `0x${hash64Hex(campaignId)}${HALF_ZERO}`;
}

/** What a trigger contributes: a count of conversions, or their value. */
export type Measure = 'count' | 'value';

/** A trigger's key piece: the hash of its measure and event name in the low half. */
export function eventKeyPiece(measure: Measure, event: string): string {
  return `0x${HALF_ZERO}${hash64Hex(`${measure}:${event}`)}`;
}

/** A fresh source_event_id: 64 bits from the CSPRNG, as the API's uint64 string. */
export function randomSourceEventId(): string {
  return crypto.getRandomValues(new BigUint64Array(1))[0]!.toString();
}
