import ipaddr from 'ipaddr.js';

/**
 * TRUSTED_PROXIES: the networks whose peers may speak for the client in X-Forwarded-For. Parsed
 * once at config time into plain data (the config is posted to listener threads), each network
 * in its 16-byte IPv6 form, IPv4 as IPv4-mapped (10.0.0.0/8 is ::ffff:10.0.0.0/104), so one
 * byte comparison serves IPv4, IPv6 and IPv4-mapped peers alike.
 */
export interface TrustedNetwork {
  bytes: number[];
  bits: number;
}

/** Comma-separated CIDRs (a bare address is a network of one); throws an Error naming the bad entry. */
export function parseTrustedProxies(list: string): TrustedNetwork[] {
  return list.split(',').map((raw) => {
    const entry = raw.trim();
    const slash = entry.indexOf('/');
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const isV4 = ipaddr.IPv4.isValidFourPartDecimal(address);
    if (!isV4 && !(ipaddr.IPv6.isValid(address) && !address.includes('%'))) {
      throw new Error(`${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR`);
    }
    const cidr = slash < 0 ? `${address}/${isV4 ? 32 : 128}` : entry;
    if (!/\/(0|[1-9][0-9]{0,2})$/.test(cidr)) throw new Error(`${JSON.stringify(entry)} has no valid prefix length`);
    let network: [ipaddr.IPv4 | ipaddr.IPv6, number];
    try {
      network = ipaddr.parseCIDR(cidr);
    } catch {
      throw new Error(`${JSON.stringify(entry)} has a prefix length beyond ${isV4 ? 32 : 128}`);
    }
    const [base, bits] = network;
    return base.kind() === 'ipv4'
      ? { bytes: (base as ipaddr.IPv4).toIPv4MappedAddress().toByteArray(), bits: bits + 96 }
      : { bytes: base.toByteArray(), bits };
  });
}

/** Whether the socket peer lies in one of `networks`; an address that does not parse is not trusted. */
export function isTrustedPeer(peer: string, networks: readonly TrustedNetwork[]): boolean {
  let bytes: number[];
  try {
    const parsed = ipaddr.parse(peer);
    bytes = parsed.kind() === 'ipv4' ? (parsed as ipaddr.IPv4).toIPv4MappedAddress().toByteArray() : parsed.toByteArray();
  } catch {
    return false;
  }
  return networks.some((network) => inNetwork(bytes, network));
}

function inNetwork(bytes: readonly number[], { bytes: prefix, bits }: TrustedNetwork): boolean {
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== prefix[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[whole]! & mask) === (prefix[whole]! & mask);
}
