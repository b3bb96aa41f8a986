/**
 * The facts about a request that rules read, computed once per request and only those the
 * link's rules need (CompiledRules.needs). Parsing of user agents and Accept-Language headers is
 * cached per string: a campaign's visitors repeat few of them.
 */
import InAppSpy from 'inapp-spy';
import { parseUserAgent } from '../../enrich/user-agent';
import { nameAt } from '../../query-string';
import type { IpType, OperatingSystem } from './rules.model';
import { setBounded } from '../../../shared/cache';

export { canonicalTimeZone, zonedHourAndWeekday, type ZonedTime } from './zoned-time';

export interface RouteFacts {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
  region: string | null;
  city: string | null;
  os: OperatingSystem | null;
  ipType: IpType | null;
  inApp: boolean;
  /** Primary subtags, lower case, most preferred first (Accept-Language order by q). */
  languages: readonly string[];
  /** The first value of each query parameter, decoded. */
  params: ReadonlyMap<string, string>;
  nowMs: number;
  /**
   * 32-bit hash of link id, IP and user agent: the sticky A/B draw (visitorHash()). null until a
   * `variants` rule is reached, which works it out from `visitor` (visitorDraw()): most visits
   * never reach one, and none of those hashes the user agent.
   */
  visitorHash: number | null;
  /** What visitorHash is worked out from, when it is still null. */
  visitor?: VisitorKey;
}

export interface VisitorKey {
  linkId: string;
  ip: string;
  userAgent: string | null;
}

export interface FactNeeds {
  geo: boolean;
  place: boolean;
  ipType: boolean;
  os: boolean;
  inApp: boolean;
  language: boolean;
  params: boolean;
  /** The parameter names some rule reads: only these are read from the query. Absent: every one (the route test shows them all). */
  paramNames?: readonly string[];
  time: boolean;
  variants: boolean;
}

/** What the IP databases answer; implemented elsewhere (src/ipintel), passed in. */
export interface IpFacts {
  country(ip: string): string | null;
  place(ip: string): { region: string | null; city: string | null };
  ipType(ip: string): 'residential' | 'mobile' | 'datacenter' | null;
}

export interface FactSource {
  linkId: string;
  ip: string;
  userAgent: string | null;
  acceptLanguage: string | null;
  /** The raw query string, without '?'. */
  query: string;
  nowMs: number;
}

const NO_LANGUAGES: readonly string[] = Object.freeze([]);
const NO_PARAMS: ReadonlyMap<string, string> = new Map();
const NO_PLACE = Object.freeze({ region: null, city: null });

export function requestFacts(source: FactSource, needs: FactNeeds, ip: IpFacts): RouteFacts {
  const ua = source.userAgent || null;
  const place = needs.place ? ip.place(source.ip) : NO_PLACE;
  const country = needs.geo ? ip.country(source.ip) : null;
  return {
    country: country === null ? null : country.toUpperCase(),
    region: place.region,
    city: place.city,
    os: needs.os ? operatingSystem(ua) : null,
    ipType: needs.ipType ? ip.ipType(source.ip) : null,
    inApp: needs.inApp ? inAppBrowser(ua) : false,
    languages: needs.language ? acceptedLanguages(source.acceptLanguage) : NO_LANGUAGES,
    params: needs.params ? firstParams(source.query, needs.paramNames) : NO_PARAMS,
    nowMs: source.nowMs,
    visitorHash: needs.variants ? null : 0,
    visitor: needs.variants ? { linkId: source.linkId, ip: source.ip, userAgent: ua } : undefined,
  };
}

/** The sticky A/B draw of these facts, hashed once, when a `variants` rule first asks for it. */
export function visitorDraw(facts: RouteFacts): number {
  if (facts.visitorHash !== null) return facts.visitorHash;
  const visitor = facts.visitor;
  return (facts.visitorHash = visitor ? visitorHash(visitor.linkId, visitor.ip, visitor.userAgent) : 0);
}

/** iOS and iPadOS (when the browser says so) are ios; no user agent is unknown; the rest desktop. */
export function operatingSystem(userAgent: string | null): OperatingSystem | null {
  if (!userAgent) return null;
  const agent = agentOf(userAgent);
  return (agent.os ??= osOf(userAgent));
}

function osOf(userAgent: string): OperatingSystem {
  const family = parseUserAgent(userAgent).osFamily;
  if (family === 'iOS') return 'ios';
  if (family === 'Android') return 'android';
  return 'desktop';
}

const CACHE_LIMIT = 10_000;
/** Longer strings are answered without being cached, so the caches' memory stays bounded. */
const MAX_CACHED_LENGTH = 1000;

/** Bounded string-keyed memo, emptied when full like src/tracking/enrich/user-agent.ts. */
function memo<T>(compute: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    if (key.length > MAX_CACHED_LENGTH) return value;
    return setBounded(cache, CACHE_LIMIT, key, value);
  };
}

/**
 * What a user agent tells the rules, each answer worked out when first asked: one entry per
 * string, so a visit whose rules read both the OS and in-app looks the (long) string up once.
 */
interface AgentFacts {
  os?: OperatingSystem;
  inApp?: boolean;
}
const agentOf = memo((): AgentFacts => ({}));

/** Whether the user agent is an app's embedded browser (Instagram, Facebook, TikTok ...), by inapp-spy. */
export function inAppBrowser(userAgent: string | null): boolean {
  if (!userAgent) return false;
  const agent = agentOf(userAgent);
  return (agent.inApp ??= InAppSpy({ ua: userAgent }).isInApp);
}

const MAX_LANGUAGE_ENTRIES = 32;
const LANGUAGE_ENTRY = /^([A-Za-z]{2,3})(?:-[A-Za-z0-9-]*)?(?:\s*;\s*q\s*=\s*([0-9.]+))?$/;
const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

const languagesByHeader = memo((header): readonly string[] => {
  const entries: { language: string; q: number; order: number }[] = [];
  for (const item of header.split(',').slice(0, MAX_LANGUAGE_ENTRIES)) {
    const match = LANGUAGE_ENTRY.exec(item.trim());
    if (!match) continue;
    const [, tag = '', rawQ] = match;
    if (rawQ !== undefined && !QVALUE.test(rawQ)) continue;
    const q = rawQ === undefined ? 1 : Number(rawQ);
    if (q > 0) entries.push({ language: tag.toLowerCase(), q, order: entries.length });
  }
  entries.sort((a, b) => b.q - a.q || a.order - b.order);
  return Object.freeze([...new Set(entries.map((entry) => entry.language))]);
});

/**
 * Primary subtags of an Accept-Language header, by q (highest first, ties in header order),
 * q=0, `*`, malformed entries and repeats left out: `de-CH, en;q=0.5, de;q=0.8` is [de, en].
 */
export function acceptedLanguages(header: string | null): readonly string[] {
  return header ? languagesByHeader(header) : NO_LANGUAGES;
}

/**
 * Each parameter's first value, form-decoded (`+` is a blank), exactly as URLSearchParams reads
 * them; with `only`, just the parameters of those names. Walked in place: a piece with neither
 * `%` nor `+` needs no decoding and is read where it is (a wanted name is matched without being
 * cut out); only the others go through URLSearchParams, one piece at a time, so a visit builds
 * no whole URLSearchParams and no iterator (docs/performance.md, "bench:smartlink").
 */
export function firstParams(raw: string, only?: readonly string[]): ReadonlyMap<string, string> {
  // URLSearchParams reads a USVString: a lone surrogate is U+FFFD before anything else.
  const query = raw.isWellFormed() ? raw : raw.toWellFormed();
  // URLSearchParams drops one leading '?'.
  const start = query.charCodeAt(0) === QUESTION_MARK ? 1 : 0;
  if (query.length <= start) return NO_PARAMS;
  const params = new Map<string, string>();
  for (let at = start; at <= query.length; ) {
    let end = query.indexOf('&', at);
    if (end < 0) end = query.length;
    if (end > at) readPiece(params, query, at, end, only);
    at = end + 1;
  }
  return params;
}

const QUESTION_MARK = 63;
const PERCENT = 37;
const PLUS = 43;
const EQUALS = 61;

/** The piece query[at, end) into `params`, unless its name is taken or not wanted. */
function readPiece(params: Map<string, string>, query: string, at: number, end: number, only: readonly string[] | undefined): void {
  let eq = -1;
  for (let i = at; i < end; i++) {
    const code = query.charCodeAt(i);
    if (code === PERCENT || code === PLUS) return decodePiece(params, query.slice(at, end), only);
    if (code === EQUALS && eq < 0) eq = i;
  }
  const nameEnd = eq < 0 ? end : eq;
  let name: string | undefined;
  if (only) {
    const wanted = nameAt(only, query, at, nameEnd);
    name = wanted < 0 ? undefined : only[wanted];
  } else name = query.slice(at, nameEnd);
  if (name === undefined || params.has(name)) return;
  params.set(name, eq < 0 ? '' : query.slice(eq + 1, end));
}

function decodePiece(params: Map<string, string>, piece: string, only: readonly string[] | undefined): void {
  // A leading '&' keeps URLSearchParams from dropping the piece's own leading '?'.
  for (const [name, value] of new URLSearchParams(`&${piece}`)) if ((!only || only.includes(name)) && !params.has(name)) params.set(name, value);
}

/**
 * FNV-1a over the UTF-16 code units of `linkId \0 ip \0 userAgent` (the bytes, for ASCII), then
 * murmur3's finaliser so every bit, the low ones a modulo reads included, depends on every input.
 */
export function visitorHash(linkId: string, ip: string, userAgent: string | null): number {
  let hash = fnv1a(0x811c9dc5, linkId);
  hash = fnv1a(Math.imul(hash, FNV_PRIME), ip);
  hash = fnv1a(Math.imul(hash, FNV_PRIME), userAgent ?? '');
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

const FNV_PRIME = 0x01000193;

function fnv1a(seed: number, text: string): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash;
}
