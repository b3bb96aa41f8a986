/** A link's key in the cache: its host binding ('' for the tracking host) and its slug. */
export function cacheKey(domain: string, slug: string): string {
  return `${domain}\n${slug}`;
}

/**
 * A Host as links store their domain: lower case, port kept (a link may be bound to
 * go.example.com:8443), a trailing dot on the name dropped.
 */
export function normaliseHost(host: string): string {
  const lower = host.toLowerCase();
  const colon = lower.lastIndexOf(':');
  const name = colon > lower.lastIndexOf(']') ? lower.slice(0, colon) : lower;
  const port = name.length < lower.length ? lower.slice(name.length) : '';
  return name.endsWith('.') ? `${name.slice(0, -1)}${port}` : lower;
}

/** The host binding a request's Host names: '' on the tracking host, else the normalised host. */
export class HostDomains {
  private readonly trackingHost: string;
  // Requests to one node mostly carry the same Host: the last one is remembered.
  private lastHost = '';
  private lastNormalised = '';

  constructor(trackingHost: string) {
    this.trackingHost = normaliseHost(trackingHost);
  }

  domainOf(host: string): string {
    if (host !== this.lastHost) {
      this.lastHost = host;
      this.lastNormalised = normaliseHost(host);
    }
    return this.lastNormalised === this.trackingHost ? '' : this.lastNormalised;
  }
}
