import { getDomain } from 'tldts';

/**
 * The "site" of a URL as the Attribution Reporting API compares destinations: scheme plus
 * registrable domain (eTLD+1 by the Public Suffix List, private suffixes such as github.io
 * included, as browsers use it), no port, no path.
 */

/** Loopback names the API accepts over plain http (a development setup). */
const LOCAL_HTTP_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * The site of `url`, or null when it cannot be a destination: not a URL, or not potentially
 * trustworthy (https, or http on localhost / 127.0.0.1 only), since the browser drops the whole
 * registration over such a destination.
 */
export function destinationSite(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const { protocol, hostname } = parsed;
  if (protocol !== 'https:' && !(protocol === 'http:' && LOCAL_HTTP_HOSTS.has(hostname))) return null;
  if (hostname === '') return null;
  // An IP address or a bare public suffix is its own site.
  const registrable = isIpHost(hostname) ? null : getDomain(hostname, { allowPrivateDomains: true });
  return `${protocol}//${registrable ?? hostname}`;
}

function isIpHost(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}
