import { isbot } from 'isbot';
import type { IpIntel } from '../../ipintel/ip-intel';
import { scoreClick, type ClickFacts } from '../risk/click-signals';
import type { RepeatWindow } from '../risk/repeat-window';
import type { IpHasher } from '../../shared/crypto/ip-hash';
import type { ClickRecord } from '../click.model';
import { claimedEngine, type CrawlerVerifier, type SearchEngine } from '../../ipintel/crawlers/crawlers';
import type { GeoLookup } from '../../ipintel/geo/geo-reader';
import { uncachedAddresses, type AddressCache, type AddressFacts } from './address-facts';
import type { IpAddress } from '../../ipintel/address';
import { parseUserAgent } from './user-agent';
import { setBounded } from '../../shared/cache';

/**
 * Why a stored click never attributes (docs/click-enrichment.md, "Drop reasons"). The steps set
 * the first three; 'blocked' is kept when the click arrives with it.
 */
export type DropReason = 'invalid' | 'verified_bot' | 'bot' | 'blocked';

export interface StepContext {
  geo: GeoLookup;
  crawlers: CrawlerVerifier;
  ipHasher: IpHasher;
  /** The IP type (datacenter, mobile, residential) for the datacenter_ip risk signal; the region for TV attribution. */
  ipIntel: Pick<IpIntel, 'ipType' | 'place'>;
  /** Recent clicks per IP and link, for the rapid_repeat risk signal. */
  repeats: RepeatWindow;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A click on its way through the steps: a copy of the record plus what every step reads. */
export interface ClickWork {
  click: ClickRecord;
  /** The parsed client address, or null when missing or malformed. */
  ip: IpAddress | null;
  /** What is known of that address, filled in by the steps that ask (address-facts.ts). */
  address: AddressFacts;
  /** created_at in ms since the epoch, parsed once for every step; NaN when unreadable. */
  at: number;
  /** Trimmed and bounded user agent; empty when none was sent. */
  userAgent: string;
  /** The search engine whose crawler the user agent claims to be, or null. */
  claimed: SearchEngine | null;
  /** isbot's verdict on the user agent (false when there is none). */
  automated: boolean;
}

export interface IngestionStep {
  name: string;
  run(work: ClickWork, context: StepContext): void;
}

/**
 * Bot patterns and crawler claims sit near the start of a user agent; bounding the text keeps
 * each click's regex work constant even for a hostile multi-kilobyte header.
 */
export const MAX_USER_AGENT_LENGTH = 1024;

export function beginWork(click: ClickRecord, addresses: AddressCache = uncachedAddresses): ClickWork {
  const rawAgent = typeof click.user_agent === 'string' ? click.user_agent.trim() : '';
  const userAgent = rawAgent.length > MAX_USER_AGENT_LENGTH ? rawAgent.slice(0, MAX_USER_AGENT_LENGTH) : rawAgent;
  const { claimed, automated } = agentFacts(userAgent);
  const address = addresses.facts(click.ip);
  return { click: { ...click }, ip: address.ip, address, at: Date.parse(click.created_at), userAgent, claimed, automated };
}

/**
 * The crawler claim and isbot's verdict, worked out once per distinct user agent: both are long
 * regular expressions, and a campaign's clicks repeat few distinct strings. Emptied when full.
 */
const AGENT_CACHE_LIMIT = 10_000;
const agents = new Map<string, { claimed: SearchEngine | null; automated: boolean }>();

function agentFacts(userAgent: string): { claimed: SearchEngine | null; automated: boolean } {
  const hit = agents.get(userAgent);
  if (hit) return hit;
  const facts = { claimed: claimedEngine(userAgent), automated: userAgent.length > 0 && isbot(userAgent) };
  return setBounded(agents, AGENT_CACHE_LIMIT, userAgent, facts);
}

/** The first reason wins: later steps still enrich a dropped click but never relabel it. */
export function drop(click: ClickRecord, reason: DropReason): void {
  click.drop_reason ??= reason;
}

export const validateStep: IngestionStep = {
  name: 'validate',
  run({ click, address, userAgent }) {
    // One spelling per address (IPv4-mapped IPv6 as IPv4, IPv6 compressed) so lookups by IP match.
    const ip = address.text;
    if (ip !== null) click.ip = ip;
    if (!ip || userAgent.length === 0) drop(click, 'invalid');
  },
};

export const geoStep: IngestionStep = {
  name: 'geo',
  run({ click, address }, { geo }) {
    const { ip } = address;
    if (!ip) click.country = null;
    else click.country = address.country !== undefined ? address.country : (address.country = geo.country(ip));
  },
};

export const userAgentStep: IngestionStep = {
  name: 'user_agent',
  run({ click, userAgent }) {
    if (userAgent.length === 0) {
      click.os_family = null;
      click.os_version = null;
      click.device_type = null;
      return;
    }
    const parsed = parseUserAgent(userAgent);
    click.os_family = parsed.osFamily;
    click.os_version = parsed.osVersion;
    click.device_type = parsed.deviceType;
  },
};

/** is_bot means exactly "verified search-engine crawler"; such clicks are kept out of attribution too. */
export const verifiedCrawlerStep: IngestionStep = {
  name: 'verified_crawler',
  run({ click, ip, claimed }, { crawlers }) {
    const verified = claimed !== null && ip !== null && crawlers.inRanges(claimed, ip);
    click.is_bot = verified;
    if (verified) drop(click, 'verified_bot');
  },
};

/**
 * A bot user agent that is not a verified crawler. Runs after verifiedCrawlerStep: a verified
 * crawler carries is_bot; any other crawler claim is spoofed, whether or not isbot knows the name.
 */
const isUnverifiedBot = ({ click, userAgent, claimed, automated }: ClickWork) =>
  userAgent.length > 0 && !click.is_bot && (claimed !== null || automated);

export const botStep: IngestionStep = {
  name: 'bot',
  run(work) {
    if (isUnverifiedBot(work)) drop(work.click, 'bot');
  },
};

/** The click's own risk signals (src/tracking/risk/click-signals.ts); beacons and installs add theirs later. */
export const riskStep: IngestionStep = {
  name: 'risk',
  run(work, { ipIntel, repeats }) {
    const { click, address } = work;
    let ipType: ClickFacts['ipType'] = null;
    if (address.text !== null) ipType = address.ipType !== undefined ? address.ipType : (address.ipType = ipIntel.ipType(address.text));
    scoreClick(click, { verifiedCrawler: click.is_bot, unverifiedBot: isUnverifiedBot(work), ipType, at: work.at }, repeats);
  },
};

export const ipIdentityStep: IngestionStep = {
  name: 'ip_identity',
  run({ click, address, at }, { ipHasher }) {
    const { text } = address;
    if (text === null) return;
    const day = Math.floor(at / DAY_MS);
    if (Number.isNaN(day)) click.ip_day_hash = null;
    else {
      if (address.ipDayOf !== day) {
        address.ipDay = ipHasher.ipDay(text, new Date(at));
        address.ipDayOf = day;
      }
      click.ip_day_hash = address.ipDay!;
    }
    click.household_hash = address.household ??= ipHasher.household(text);
  },
};

/** The region of the address, which regional TV airings count traffic by (docs/growth-imports.md). */
export const regionStep: IngestionStep = {
  name: 'region',
  run({ click, address }, { ipIntel }) {
    const { text } = address;
    if (text === null) click.region = null;
    else click.region = address.region !== undefined ? address.region : (address.region = ipIntel.place(text).region);
  },
};

/** The pipeline, in order. Every step runs on every click; drops only label it. */
export const STEPS: readonly IngestionStep[] = [validateStep, geoStep, userAgentStep, verifiedCrawlerStep, botStep, ipIdentityStep, riskStep, regionStep];
