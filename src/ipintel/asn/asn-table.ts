import type ipaddr from 'ipaddr.js';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { IpAddress } from '../address';

/**
 * Address -> autonomous system, from the CSV files of @ip-location-db/asn (RouteViews, the RIRs
 * and DB-IP, CC BY 4.0): rows `start,end,asn,org` with inclusive numeric bounds, IPv6 bounds as
 * 128-bit decimals, parsed into sorted typed arrays (asn-load.ts loads them once per process);
 * a lookup is a binary search.
 */
export interface AsnRecord {
  asn: number;
  org: string;
}

export interface AsnTable {
  lookup(ip: IpAddress): AsnRecord | null;
  /** Every (asn, org) pair the table holds, for the offline classifier of the refresh script. */
  records(): AsnRecord[];
  readonly rows: { v4: number; v6: number };
}

export class AsnDataError extends Error {}

export const DEFAULT_ASN_DIR = dirname(createRequire(import.meta.url).resolve('@ip-location-db/asn/package.json'));
export const ASN_FILES = { v4: 'asn-ipv4-num.csv', v6: 'asn-ipv6-num.csv' } as const;

const MAX_U32 = 0xffff_ffff;
const DIGITS = /^\d{1,39}$/;

/** One row with its bounds still as decimal text: the family decides how wide they may be. */
export interface AsnRow {
  start: string;
  end: string;
  asn: number;
  org: string;
}

/**
 * One CSV row: three unsigned decimals, then the organisation, RFC 4180 quoted when it holds a
 * comma or a quote. The layout is fixed and the files hold half a million rows, so a row is cut
 * by hand rather than through a general CSV parser.
 */
export function parseAsnRow(line: string, file: string, lineNumber: number): AsnRow {
  const where = () => `${file}:${lineNumber}`;
  const c1 = line.indexOf(',');
  const c2 = c1 < 0 ? -1 : line.indexOf(',', c1 + 1);
  const c3 = c2 < 0 ? -1 : line.indexOf(',', c2 + 1);
  if (c3 < 0) throw new AsnDataError(`${where()}: expected start,end,asn,org`);
  const row = { start: line.slice(0, c1), end: line.slice(c1 + 1, c2), asn: Number(line.slice(c2 + 1, c3)), org: unquote(line.slice(c3 + 1), where) };
  if (!DIGITS.test(row.start) || !DIGITS.test(row.end) || !DIGITS.test(line.slice(c2 + 1, c3))) throw new AsnDataError(`${where()}: bounds and asn must be unsigned decimals`);
  if (row.asn > MAX_U32) throw new AsnDataError(`${where()}: asn ${row.asn} is not a 32-bit number`);
  return row;
}

function unquote(field: string, where: () => string): string {
  if (!field.startsWith('"')) {
    if (field.includes('"')) throw new AsnDataError(`${where()}: stray quote in the organisation`);
    return field;
  }
  const inner = field.slice(1, -1);
  if (field.length < 2 || !field.endsWith('"') || inner.replaceAll('""', '').includes('"')) {
    throw new AsnDataError(`${where()}: badly quoted organisation`);
  }
  return inner.replaceAll('""', '"');
}

/** The arithmetic of one family's bounds: IPv4 fits a double, IPv6 needs bigint. */
interface BoundType<B extends number | bigint> {
  parse(digits: string): B;
  max: B;
  one: B;
}
const V4_BOUNDS: BoundType<number> = { parse: Number, max: MAX_U32, one: 1 };
const V6_BOUNDS: BoundType<bigint> = { parse: BigInt, max: (1n << 128n) - 1n, one: 1n };

/**
 * Rows in file order, checked: sorted by start, bounds inside the family. Where a row starts
 * inside the previous one (the published files hold the odd such pair), the later row wins the
 * overlap and the earlier one is cut short.
 */
function eachRow<B extends number | bigint>(text: string, file: string, bounds: BoundType<B>, take: (start: B, end: B, asn: number, org: string) => void): void {
  let held = false;
  let heldStart = bounds.one;
  let heldEnd = bounds.one;
  let heldAsn = 0;
  let heldOrg = '';
  let lineNumber = 0;
  for (let position = 0; position < text.length; ) {
    let next = text.indexOf('\n', position);
    if (next < 0) next = text.length;
    const line = text.charCodeAt(next - 1) === 13 ? text.slice(position, next - 1) : text.slice(position, next);
    position = next + 1;
    lineNumber++;
    if (line === '') continue;
    const row = parseAsnRow(line, file, lineNumber);
    const start = bounds.parse(row.start);
    const end = bounds.parse(row.end);
    if (end < start || end > bounds.max) throw new AsnDataError(`${file}:${lineNumber}: range ${row.start}-${row.end} is empty or outside the family`);
    if (held) {
      if (start <= heldStart) throw new AsnDataError(`${file}:${lineNumber}: rows are not sorted by start`);
      take(heldStart, start <= heldEnd ? ((start - bounds.one) as B) : heldEnd, heldAsn, heldOrg);
    }
    held = true;
    heldStart = start;
    heldEnd = end;
    heldAsn = row.asn;
    heldOrg = row.org;
  }
  if (held) take(heldStart, heldEnd, heldAsn, heldOrg);
}

function countLines(text: string): number {
  let count = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** The last row whose start is at most the address (`startsAfter` false), or -1. */
function lastStartAtMost(length: number, startsAfter: (row: number) => boolean): number {
  let low = 0;
  let high = length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (startsAfter(mid)) high = mid - 1;
    else {
      found = mid;
      low = mid + 1;
    }
  }
  return found;
}

/** An IPv6 bound as four 32-bit words, most significant first, at `words[4 * row]`. */
function writeWords(words: Uint32Array, row: number, value: bigint): void {
  const hex = value.toString(16).padStart(32, '0');
  for (let word = 0; word < 4; word++) words[4 * row + word] = parseInt(hex.slice(8 * word, 8 * word + 8), 16);
}

/** -1, 0 or 1 as the address (four words) is below, at or above the bound stored for `row`. */
function compareWords(address: readonly number[], words: Uint32Array, row: number): number {
  for (let word = 0; word < 4; word++) {
    const bound = words[4 * row + word]!;
    if (address[word]! !== bound) return address[word]! < bound ? -1 : 1;
  }
  return 0;
}

/**
 * The table as flat arrays, the same whether parsed from the CSV files or mapped from a cache
 * file (asn-cache.ts). Row i of IPv6 has its bounds at words 4i to 4i+3. Entry e is the pair
 * (entryAsn[e], the UTF-8 bytes orgBytes[orgOffsets[e]] up to orgOffsets[e + 1]).
 */
export interface AsnArrays {
  v4Start: Uint32Array;
  v4End: Uint32Array;
  v4Entry: Uint32Array;
  v6Start: Uint32Array;
  v6End: Uint32Array;
  v6Entry: Uint32Array;
  entryAsn: Uint32Array;
  orgOffsets: Uint32Array;
  orgBytes: Uint8Array;
}

/** Parses the two files' text into arrays (tests pass small ones). */
export function parseAsnArrays(v4Text: string, v6Text: string, names: { v4: string; v6: string } = ASN_FILES): AsnArrays {
  // (asn, org) pairs, each stored once; rows point at them by index. An ASN almost always
  // carries one name, so pairs are found by number first and by name only when it differs.
  const asns: number[] = [];
  const orgs: string[] = [];
  const byAsn = new Map<number, number>();
  const byPair = new Map<string, number>();
  const entryOf = (asn: number, org: string) => {
    const first = byAsn.get(asn);
    if (first !== undefined && orgs[first] === org) return first;
    const key = `${asn}\u0000${org}`;
    let at = first === undefined ? undefined : byPair.get(key);
    if (at === undefined) {
      at = asns.push(asn) - 1;
      orgs.push(org);
      if (first === undefined) byAsn.set(asn, at);
      else byPair.set(key, at);
    }
    return at;
  };

  let capacity = countLines(v4Text);
  const v4 = { start: new Uint32Array(capacity), end: new Uint32Array(capacity), entry: new Uint32Array(capacity), length: 0 };
  eachRow(v4Text, names.v4, V4_BOUNDS, (start, end, asn, org) => {
    v4.start[v4.length] = start;
    v4.end[v4.length] = end;
    v4.entry[v4.length++] = entryOf(asn, org);
  });
  capacity = countLines(v6Text);
  const v6 = { start: new Uint32Array(4 * capacity), end: new Uint32Array(4 * capacity), entry: new Uint32Array(capacity), length: 0 };
  eachRow(v6Text, names.v6, V6_BOUNDS, (start, end, asn, org) => {
    writeWords(v6.start, v6.length, start);
    writeWords(v6.end, v6.length, end);
    v6.entry[v6.length++] = entryOf(asn, org);
  });

  const orgOffsets = new Uint32Array(orgs.length + 1);
  orgs.forEach((org, entry) => (orgOffsets[entry + 1] = orgOffsets[entry]! + Buffer.byteLength(org)));
  const orgBytes = new Uint8Array(orgOffsets[orgs.length]!);
  const encoder = new TextEncoder();
  orgs.forEach((org, entry) => encoder.encodeInto(org, orgBytes.subarray(orgOffsets[entry])));
  // Exact lengths: a cache file is written from these.
  return {
    v4Start: v4.start.slice(0, v4.length),
    v4End: v4.end.slice(0, v4.length),
    v4Entry: v4.entry.slice(0, v4.length),
    v6Start: v6.start.slice(0, 4 * v6.length),
    v6End: v6.end.slice(0, 4 * v6.length),
    v6Entry: v6.entry.slice(0, v6.length),
    entryAsn: Uint32Array.from(asns),
    orgOffsets,
    orgBytes,
  };
}

/** Lookups over the arrays; an organisation's name is decoded the first time it is asked for. */
export function asnTableOf(arrays: AsnArrays): AsnTable {
  const { v4Start, v4End, v4Entry, v6Start, v6End, v6Entry, entryAsn, orgOffsets, orgBytes } = arrays;
  const decoder = new TextDecoder();
  const names: (string | undefined)[] = new Array(entryAsn.length);
  const record = (entry: number): AsnRecord => ({
    asn: entryAsn[entry]!,
    org: (names[entry] ??= decoder.decode(orgBytes.subarray(orgOffsets[entry], orgOffsets[entry + 1]))),
  });
  return {
    rows: { v4: v4Start.length, v6: v6Entry.length },
    records: () => Array.from(entryAsn, (_, entry) => record(entry)),
    lookup(ip) {
      if (ip.kind() === 'ipv4') {
        const [a, b, c, d] = ip.toByteArray() as [number, number, number, number];
        const n = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
        const row = lastStartAtMost(v4Start.length, (r) => v4Start[r]! > n);
        return row >= 0 && n <= v4End[row]! ? record(v4Entry[row]!) : null;
      }
      const parts = (ip as ipaddr.IPv6).parts;
      const address = [0, 2, 4, 6].map((at) => ((parts[at]! << 16) | parts[at + 1]!) >>> 0);
      const row = lastStartAtMost(v6Entry.length, (r) => compareWords(address, v6Start, r) < 0);
      return row >= 0 && compareWords(address, v6End, row) <= 0 ? record(v6Entry[row]!) : null;
    },
  };
}

export function buildAsnTable(v4Text: string, v6Text: string, names?: { v4: string; v6: string }): AsnTable {
  return asnTableOf(parseAsnArrays(v4Text, v6Text, names));
}
