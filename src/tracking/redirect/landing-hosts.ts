/**
 * A link's allowed_landing_hosts: the hosts its click redirect may send a visitor to when the
 * request names the landing URL. Parsed on write (links API), compiled once into the link
 * cache entry, and matched per click without allocating (docs/tracking.md).
 */
import { parseDomain } from '../../shared/net/hostname';
import type { Parsed } from '../../shared/timestamp';

export const MAX_LANDING_HOSTS = 50;
export const LANDING_HOSTS_ERROR = `must be an array of at most ${MAX_LANDING_HOSTS} hosts, or null`;

/** A compiled list: exact hosts, and suffixes such as '.brand.example' for `*.brand.example`. */
export interface LandingHosts {
  exact: ReadonlySet<string>;
  suffixes: readonly string[];
}

/**
 * One entry: a hostname (`shop.example`) or `*.` and a hostname (`*.brand.example`, any
 * subdomain of it but not itself), lower-cased. No scheme, port, path or IP literal.
 */
export function parseLandingHost(raw: unknown): Parsed<string> {
  const error = 'must be a hostname such as shop.example, or *. and a hostname such as *.shop.example';
  if (typeof raw !== 'string') return { error };
  const wildcard = raw.startsWith('*.');
  const host = wildcard ? raw.slice(2) : raw;
  const parsed = parseDomain(host);
  if ('error' in parsed || parsed.value.includes(':')) return { error };
  return { value: wildcard ? `*.${parsed.value}` : parsed.value };
}

/** The list as stored: every entry checked (errors by index), duplicates dropped, order kept. */
export function parseLandingHosts(list: readonly unknown[]): { value: string[] } | { errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const value: string[] = [];
  list.forEach((entry, index) => {
    const parsed = parseLandingHost(entry);
    if ('error' in parsed) errors[`allowed_landing_hosts.${index}`] = [parsed.error];
    else if (!value.includes(parsed.value)) value.push(parsed.value);
  });
  return Object.keys(errors).length > 0 ? { errors } : { value };
}

/** Entries that do not parse (a row written behind the API's back) match nothing. */
export function compileLandingHosts(list: readonly unknown[]): LandingHosts {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of list) {
    const parsed = parseLandingHost(entry);
    if ('error' in parsed) continue;
    if (parsed.value.startsWith('*.')) suffixes.push(parsed.value.slice(1));
    else exact.add(parsed.value);
  }
  return { exact, suffixes };
}

/** `host` as comparableHost gives it (src/shared/net/web-url.ts). */
export function landingHostAllowed(hosts: LandingHosts, host: string): boolean {
  if (hosts.exact.has(host)) return true;
  for (const suffix of hosts.suffixes) if (host.endsWith(suffix)) return true;
  return false;
}
