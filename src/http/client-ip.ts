import ipaddr from 'ipaddr.js';
import { isTrustedPeer, type TrustedNetwork } from './trusted-proxies';

/** TRUST_PROXY and TRUSTED_PROXIES as the config holds them; pass the config itself. */
export interface ProxyTrust {
  trustProxy: number;
  trustedProxies: readonly TrustedNetwork[] | undefined;
}

/**
 * The client's address. Without trusted proxies it is the socket peer and X-Forwarded-For is
 * ignored (anyone can send that header). With `trustProxy` = N hops, each proxy appended the
 * address it saw, so the client is the N-th entry from the right: entries further left were
 * written by the client itself and prove nothing. With `trustedProxies` the header is read only
 * when the socket peer is in one of those networks. Without a socket (in-process tests) and
 * without a trusted header the answer is '0.0.0.0'.
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
