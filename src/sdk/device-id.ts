import { sha256Hex } from '../shared/crypto/secrets';

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * The stored form of a device id: SDKs send the SHA-256 hex of the platform id; anything else is
 * a raw id (IDFV, Android id, a TV's device id) and is hashed here, so a raw id never reaches storage.
 */
export function deviceIdHash(deviceId: string): string {
  const trimmed = deviceId.trim();
  return SHA256_HEX.test(trimmed) ? trimmed.toLowerCase() : sha256Hex(trimmed);
}
