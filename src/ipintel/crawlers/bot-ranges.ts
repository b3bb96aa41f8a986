import ipaddr from 'ipaddr.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The published IP ranges of a search-engine crawler, in the layout Google, Bing, Apple and
 * DuckDuckGo all publish: {creationTime, prefixes: [{ipv4Prefix} | {ipv6Prefix}]}.
 * The files under bot-ranges/ are snapshots of those documents; scripts/refresh-bot-ranges.ts
 * replaces them with fresh downloads after validating them with parseRangeFile.
 */
export interface RangeFile {
  creationTime: string | null;
  /** Normalised CIDRs (network address, prefix length), deduplicated, in published order. */
  prefixes: string[];
}

export class RangeFileError extends Error {}

export const RANGES_DIR = join(import.meta.dir, 'bot-ranges');

/**
 * A prefix wider than these is refused: no engine publishes one, and a single 0.0.0.0/0 slipped
 * into a file would make every spoofed crawler pass as verified.
 */
export const MIN_IPV4_BITS = 8;
export const MIN_IPV6_BITS = 16;

/** Validates one published document; throws RangeFileError naming the first bad entry. */
export function parseRangeFile(document: unknown, source: string): RangeFile {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new RangeFileError(`${source}: not a JSON object`);
  }
  const { creationTime, prefixes } = document as { creationTime?: unknown; prefixes?: unknown };
  if (!Array.isArray(prefixes) || prefixes.length === 0) throw new RangeFileError(`${source}: "prefixes" must be a non-empty array`);
  if (creationTime !== undefined && creationTime !== null && typeof creationTime !== 'string') throw new RangeFileError(`${source}: "creationTime" must be a string`);
  const seen = new Set<string>();
  const normalised: string[] = [];
  prefixes.forEach((entry, index) => {
    const cidr = normaliseEntry(entry, `${source}: prefixes[${index}]`);
    if (!seen.has(cidr)) {
      seen.add(cidr);
      normalised.push(cidr);
    }
  });
  return { creationTime: (creationTime as string | null | undefined) ?? null, prefixes: normalised };
}

function normaliseEntry(entry: unknown, where: string): string {
  if (typeof entry !== 'object' || entry === null) throw new RangeFileError(`${where}: not an object`);
  const { ipv4Prefix, ipv6Prefix } = entry as { ipv4Prefix?: unknown; ipv6Prefix?: unknown };
  const kind = typeof ipv4Prefix === 'string' ? 'ipv4' : typeof ipv6Prefix === 'string' ? 'ipv6' : null;
  if (!kind || (ipv4Prefix !== undefined && ipv6Prefix !== undefined)) {
    throw new RangeFileError(`${where}: needs exactly one of ipv4Prefix or ipv6Prefix`);
  }
  const text = (kind === 'ipv4' ? ipv4Prefix : ipv6Prefix) as string;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  let bits: number;
  try {
    [address, bits] = ipaddr.parseCIDR(text);
  } catch {
    throw new RangeFileError(`${where}: "${text}" is not a CIDR`);
  }
  if (address.kind() !== kind) throw new RangeFileError(`${where}: "${text}" is not an ${kind} prefix`);
  if (kind === 'ipv4' && (!ipaddr.IPv4.isValidFourPartDecimal(text.split('/')[0]!) || bits < MIN_IPV4_BITS)) {
    throw new RangeFileError(`${where}: "${text}" is not a dotted-quad prefix of /${MIN_IPV4_BITS} or longer`);
  }
  if (kind === 'ipv6' && bits < MIN_IPV6_BITS) throw new RangeFileError(`${where}: "${text}" is wider than /${MIN_IPV6_BITS}`);
  const network = kind === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(text) : ipaddr.IPv6.networkAddressFromCIDR(text);
  return `${network.toString()}/${bits}`;
}

/** The published layout again, one prefix per line so a refresh reads well as a diff. */
export function serializeRangeFile(file: RangeFile): string {
  const lines = file.prefixes.map((cidr) => `    ${JSON.stringify(cidr.includes(':') ? { ipv6Prefix: cidr } : { ipv4Prefix: cidr })}`);
  return `{\n  "creationTime": ${JSON.stringify(file.creationTime)},\n  "prefixes": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

/** Reads and validates one shipped file; a broken file stops the process at boot, not per click. */
export function readRangeFile(file: string, dir = RANGES_DIR): RangeFile {
  const path = join(dir, file);
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new RangeFileError(`${path}: ${(error as Error).message}`);
  }
  return parseRangeFile(document, path);
}
