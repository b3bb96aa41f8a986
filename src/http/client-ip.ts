import ipaddr from 'ipaddr.js';
import { isTrustedPeer, type TrustedNetwork } from '../config/trusted-proxies';

/** TRUST_PROXY and TRUSTED_PROXIES as the config holds them; pass the config itself. */
export interface ProxyTrust {
  trustProxy: number;
  trustedProxies: readonly TrustedNetwork[] | undefined;
}

/**
 * The client's address: the socket peer, or with `trustProxy` = N hops the N-th X-Forwarded-For
 * entry from the right (entries further left were written by the client and prove nothing), read
 * only when the peer is in `trustedProxies`, if set. Without a socket or a trusted header: '0.0.0.0'.
 */
export function clientIp(request: Request, socketIp: string | undefined, { trustProxy: hops, trustedProxies }: ProxyTrust): string {
  if (hops > 0 && (trustedProxies === undefined || (socketIp !== undefined && isTrustedPeer(socketIp, trustedProxies)))) {
    const entries = (request.headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    // A shorter chain than configured: the left-most entry is the best that is known.
    const candidate = entries[Math.max(0, entries.length - hops)];
    if (candidate && ipaddr.isValid(candidate)) return normaliseIp(candidate);
  }
  return socketIp ? normaliseIp(socketIp) : '0.0.0.0';
}

/** IPv4-mapped IPv6 (::ffff:1.2.3.4) is the IPv4 address; IPv6 is written in its short form. */
export function normaliseIp(ip: string): string {
  try {
    const parsed = ipaddr.parse(ip);
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      return (parsed as ipaddr.IPv6).toIPv4Address().toString();
    }
    return parsed.toString();
  } catch {
    return ip;
  }
}

/**
 * The rate-limit identity of an address: IPv4 as is, IPv6 aggregated at its /64 (one
 * subscriber usually holds a whole /64, so per-address limits would be trivial to dodge).
 */
export function rateLimitKey(ip: string): string {
  try {
    const parsed = ipaddr.process(ip);
    if (parsed.kind() === 'ipv4') return parsed.toString();
    const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
    return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
  } catch {
    return ip;
  }
}
