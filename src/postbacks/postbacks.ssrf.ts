import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup } from 'node:dns/promises';

/** Resolves a hostname to every address it has (A and AAAA). */
export type Lookup = (hostname: string) => Promise<string[]>;

export const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** The destination's host is, or resolves to, an address the service must not call. */
export class RefusedDestinationError extends Error {}

/**
 * Only globally routable unicast addresses are allowed: ipaddr.js names every special range
 * (loopback, private, link-local and cloud metadata, carrier-grade NAT, 6to4 ...) and calls the
 * rest 'unicast'. IPv4-mapped IPv6 is judged as the IPv4 address it maps to.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** URL.hostname keeps IPv6 literals in brackets. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Throws RefusedDestinationError when the host is, or resolves to, any non-public address
 * (one bad address among several is enough: the client may pick it). DNS errors propagate
 * unchanged so a delivery can retry them. Nothing is checked when private targets are allowed.
 */
export async function assertPublicHost(hostname: string, options: { allowPrivate: boolean; lookup?: Lookup }): Promise<void> {
  if (options.allowPrivate) return;
  const host = bareHost(hostname);
  const addresses = ipaddr.isValid(host) ? [host] : await (options.lookup ?? systemLookup)(host);
  if (addresses.length === 0) throw new RefusedDestinationError(`${host} has no address`);
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) throw new RefusedDestinationError(`${host} resolves to a non-public address (${refused})`);
}
