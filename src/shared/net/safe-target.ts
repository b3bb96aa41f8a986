/**
 * The one guard for outbound requests to URLs customers choose (postbacks, the install
 * forwarder): the host is resolved once, every answer must be public unicast unless the operator
 * allows private targets (POSTBACK_ALLOW_PRIVATE), and the request connects to the address that
 * was checked, naming the host in the Host header and the TLS server name.
 */
import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup } from 'node:dns/promises';

/** Resolves a hostname to every address it has (A and AAAA). */
export type Lookup = (hostname: string) => Promise<string[]>;

export const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** The target is, or resolves to, an address the service must not call. The message is for logs. */
export class UnsafeTargetError extends Error {}

/** ::/96, IPv4-compatible IPv6 (deprecated): ipaddr.js calls all of it but :: and ::1 unicast. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
/** The well-known NAT64 prefix; the local-use one (64:ff9b:1::/48) is operator-defined and refused. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function isPublicIpv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

/** The IPv4 address held in two 16-bit parts of an IPv6 address. */
function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The address as the URL parser, and so the connection, reads it; null when it is not an
 * address. ipaddr.js reads some spellings differently (it takes ::a.b.c.d as IPv4-mapped).
 */
function canonicalAddress(address: string): string | null {
  let host: string;
  try {
    host = new URL(`http://${address.includes(':') ? `[${address}]` : address}/`).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return null;
  }
  return ipaddr.isValid(host) ? host : null;
}

/**
 * Globally routable unicast only: ipaddr.js names every special range (loopback, private, metadata,
 * CGNAT, reserved ...) and calls the rest unicast. IPv4-mapped IPv6 is judged as its IPv4 address;
 * NAT64, 6to4 and Teredo by the IPv4 addresses they embed; IPv4-compatible ::/96 is refused.
 */
export function isPublicAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  if (canonical === null) return false;
  const parsed = ipaddr.process(canonical);
  if (parsed.kind() === 'ipv4') return isPublicIpv4(parsed as ipaddr.IPv4);
  const ipv6 = parsed as ipaddr.IPv6;
  const parts = ipv6.parts;
  switch (ipv6.range()) {
    case 'unicast':
      return !ipv6.match(IPV4_COMPATIBLE);
    case 'rfc6052':
      return ipv6.match(NAT64_WELL_KNOWN) && isPublicIpv4(ipv4Of(parts[6]!, parts[7]!));
    case '6to4':
      return isPublicIpv4(ipv4Of(parts[1]!, parts[2]!));
    case 'teredo':
      // The Teredo server's address, then the client's public address stored inverted.
      return isPublicIpv4(ipv4Of(parts[2]!, parts[3]!)) && isPublicIpv4(ipv4Of(~parts[6]! & 0xffff, ~parts[7]! & 0xffff));
    default:
      return false;
  }
}

/** URL.hostname keeps IPv6 literals in brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Names that mean this machine whatever DNS says (RFC 6761). */
function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
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
  const host = bareHost(url);
  if (isLoopbackName(host) || (ipaddr.isValid(host) && !isPublicAddress(host))) throw new UnsafeTargetError('must not point to a private address');
  return url;
}

export interface TargetOptions {
  allowPrivate: boolean;
  lookup?: Lookup;
}

/**
 * Resolves the URL's host once and returns the address to connect to, the first answer. Throws
 * UnsafeTargetError when any answer is not public (the client could pick any of them) or there
 * is none; DNS failures propagate unchanged so callers can retry them.
 */
export async function resolveTarget(url: URL, { allowPrivate, lookup = systemLookup }: TargetOptions): Promise<string> {
  const host = bareHost(url);
  if (!allowPrivate && isLoopbackName(host)) throw new UnsafeTargetError(`${host} is a loopback name`);
  const answers = ipaddr.isValid(host) ? [host] : await lookup(host);
  if (answers.length === 0) throw new UnsafeTargetError(`${host} has no address`);
  const refused = answers.find((answer) => (allowPrivate ? canonicalAddress(answer) === null : !isPublicAddress(answer)));
  if (refused !== undefined) throw new UnsafeTargetError(`${host} resolves to a non-public address (${refused})`);
  return canonicalAddress(answers[0]!)!;
}

/** The URL rewritten to the resolved address, with what the request needs to still name the host. */
function pinnedRequest(url: URL, address: string): { url: string; host: string; serverName: string | undefined } {
  const pinned = new URL(url.toString());
  pinned.hostname = ipaddr.parse(address).kind() === 'ipv6' ? `[${address}]` : address;
  const host = bareHost(url);
  // A literal address is not a server name (RFC 6066); its certificate is checked against the address.
  return { url: pinned.toString(), host: url.host, serverName: ipaddr.isValid(host) ? undefined : host };
}

export interface PinnedFetchOptions extends TargetOptions {
  /** Bounds the lookup as well as the request. */
  signal: AbortSignal;
  /** Trust roots replacing the system's (tests with their own certificate authority). */
  ca?: string;
}

/**
 * fetch() that cannot be steered inward by DNS: resolves and checks once, then connects to that
 * address. HTTPS still verifies the certificate against the URL's host name. Redirects are
 * never followed: a public endpoint could otherwise bounce the request anywhere.
 */
export async function fetchPinned(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string },
  options: PinnedFetchOptions,
): Promise<Response> {
  const address = await withSignal(resolveTarget(url, options), options.signal);
  const pinned = pinnedRequest(url, address);
  const headers = new Headers(init.headers);
  headers.set('host', pinned.host);
  const tls = { ...(pinned.serverName ? { serverName: pinned.serverName } : {}), ...(options.ca ? { ca: options.ca } : {}) };
  return fetch(pinned.url, { method: init.method, headers, body: init.body, redirect: 'manual', signal: options.signal, tls });
}

/** Lets a signal bound work that does not take one (the DNS lookup). */
function withSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
