import ipaddr from 'ipaddr.js';

/**
 * The client's address: the socket peer, or, only when TRUST_PROXY is set, the left-most
 * X-Forwarded-For entry (what the load balancer saw). Without a socket (in-process tests) and
 * without a trusted header the address is unknown and answers '0.0.0.0'.
 */
export function clientIp(request: Request, socketIp: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for');
    const first = forwarded?.split(',')[0]?.trim();
    if (first && ipaddr.isValid(first)) return normaliseIp(first);
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

/** The rate-limit identity of an address: IPv4 as is, IPv6 aggregated at its /64. */
export function rateLimitKey(ip: string): string {
  try {
    const parsed = ipaddr.parse(ip);
    if (parsed.kind() === 'ipv4') return parsed.toString();
    const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
    return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
  } catch {
    return ip;
  }
}
