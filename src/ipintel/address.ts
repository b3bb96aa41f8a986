import ipaddr from 'ipaddr.js';
import { CANONICAL_IPV4 } from '../shared/crypto/ip-hash';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** Longer than any textual address, zone id included; longer input is refused before parsing. */
const MAX_IP_LENGTH = 64;

/**
 * Strict parse of a client address: only dotted-quad IPv4 and RFC 4291 IPv6 (ipaddr.js alone
 * would take "0x7f.1"); an IPv4-mapped IPv6 address becomes the IPv4 address it carries, so
 * ranges and the geo database see one spelling.
 */
export function parseIp(text: string | null | undefined): IpAddress | null {
  if (typeof text !== 'string') return null;
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_IP_LENGTH) return null;
  // The common case, checked by one regular expression instead of ipaddr's general parser.
  if (CANONICAL_IPV4.test(trimmed)) return new ipaddr.IPv4(trimmed.split('.').map(Number));
  try {
    if (trimmed.includes(':')) return ipaddr.IPv6.isValid(trimmed) ? ipaddr.process(trimmed) : null;
    return ipaddr.IPv4.isValidFourPartDecimal(trimmed) ? ipaddr.IPv4.parse(trimmed) : null;
  } catch {
    return null;
  }
}
