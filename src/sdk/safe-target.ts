import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';

/**
 * Outbound calls to customer-configured URLs (the ad-platform forwarder) must not reach the
 * service's own network: every address the name resolves to has to be public unicast, unless
 * POSTBACK_ALLOW_PRIVATE is set (local testing, private deployments).
 */
export class UnsafeTargetError extends Error {}

export type Lookup = (hostname: string) => Promise<string[]>;

export const systemLookup: Lookup = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export function isPublicAddress(address: string): boolean {
  try {
    const parsed = ipaddr.process(address);
    return parsed.range() === 'unicast';
  } catch {
    return false;
  }
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Checks what can be checked without DNS: scheme, credentials, literal addresses, localhost names. */
export function assertAcceptableUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeTargetError('must be an absolute http(s) URL');
  if (url.username || url.password) throw new UnsafeTargetError('must not carry credentials; use headers');
  if (allowPrivate) return url;
  const host = bareHost(url).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) throw new UnsafeTargetError('must not point to a private address');
  if (ipaddr.isValid(host) && !isPublicAddress(host)) throw new UnsafeTargetError('must not point to a private address');
  return url;
}

/**
 * Resolves the URL's host and returns the address to connect to. Connecting to that address
 * (not the name again) closes the window in which DNS could be re-pointed at a private address.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean, resolve: Lookup = systemLookup): Promise<string> {
  const host = bareHost(url);
  const addresses = ipaddr.isValid(host) ? [host] : await resolve(host);
  if (addresses.length === 0) throw new UnsafeTargetError(`${host} does not resolve`);
  if (!allowPrivate && !addresses.every(isPublicAddress)) throw new UnsafeTargetError(`${host} resolves to a private address`);
  return addresses[0]!;
}

/** The URL rewritten to the resolved address, with what the request needs to still name the host. */
export function pinnedRequest(url: URL, address: string): { url: string; host: string; serverName: string } {
  const pinned = new URL(url.toString());
  pinned.hostname = ipaddr.parse(address).kind() === 'ipv6' ? `[${address}]` : address;
  return { url: pinned.toString(), host: url.host, serverName: bareHost(url) };
}
