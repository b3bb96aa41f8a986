import ipaddr from 'ipaddr.js';
import { createHmac } from 'node:crypto';

/**
 * Privacy-preserving IP identities shared by impressions, clicks and installs: ipDay (the address
 * with the UTC day) and household (the /24 or /48 prefix, for household matching). Both are HMACs
 * under a key derived from the service secret: a bare SHA-256 of an IPv4 address could be
 * reversed by trying all 2^32.
 */
export interface IpHasher {
  ipDay(ip: string, at: Date): string;
  household(ip: string): string;
}

export function createIpHasher(secret: string): IpHasher {
  const key = createHmac('sha256', secret).update('svc ip hashing v1').digest();
  // Keyed once; each hash copies the keyed state, cheaper than a new HMAC per click.
  const keyed = new Bun.CryptoHasher('sha256', key);
  const mac = (value: string) => keyed.copy().update(value).digest('hex');
  return {
    ipDay: (ip, at) => mac(`ipday|${canonicalIp(ip)}|${at.toISOString().slice(0, 10)}`),
    household: (ip) => mac(`household|${householdPrefix(ip)}`),
  };
}

/**
 * A dotted-quad IPv4 address in its one canonical spelling (four decimal octets up to 255, no
 * leading zeros): almost every client address, recognised without parsing.
 */
export const CANONICAL_IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** One spelling per address: IPv4-mapped IPv6 becomes IPv4, IPv6 is fully normalised. */
export function canonicalIp(ip: string): string {
  if (CANONICAL_IPV4.test(ip)) return ip;
  try {
    const parsed = ipaddr.process(ip);
    return parsed.kind() === 'ipv6' ? (parsed as ipaddr.IPv6).toNormalizedString() : parsed.toString();
  } catch {
    return ip.trim().toLowerCase();
  }
}

/** The /24 of an IPv4 address or the /48 of an IPv6 address, as text. */
export function householdPrefix(ip: string): string {
  if (CANONICAL_IPV4.test(ip)) return `${ip.slice(0, ip.lastIndexOf('.'))}.0/24`;
  try {
    const parsed = ipaddr.process(ip);
    if (parsed.kind() === 'ipv4') return `${(parsed as ipaddr.IPv4).octets.slice(0, 3).join('.')}.0/24`;
    const parts = (parsed as ipaddr.IPv6).parts.slice(0, 3).map((p) => p.toString(16));
    return `${parts.join(':')}::/48`;
  } catch {
    return ip.trim().toLowerCase();
  }
}
