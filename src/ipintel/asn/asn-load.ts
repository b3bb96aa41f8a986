import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomically } from '../../shared/files/write-atomically';
import { ASN_FILES, AsnDataError, asnTableOf, DEFAULT_ASN_DIR, parseAsnArrays, type AsnArrays, type AsnTable } from './asn-table';

/**
 * Loads the ASN table once per process, through a binary copy under the data directory: written
 * when a version of the CSV files is first parsed, mapped with Bun.mmap from then on, so a start
 * parses nothing and every thread shares the same cached pages. Layout: an 8-byte magic, 32-bit
 * words (endianness probe, format, counts), the CSV files' fingerprint, the arrays in order.
 */
const MAGIC = 'SVCASN\u0000\u0001';
const FORMAT = 1;
const ENDIAN_PROBE = 0x01020304;
/** Words after the magic: probe, format, v4 rows, v6 rows, entries, org bytes, fingerprint bytes. */
const HEADER_WORDS = 7;

const align4 = (n: number) => (n + 3) & ~3;

/** What identifies one copy of the CSV files: the package version, and each file's size and time. */
export function asnFingerprint(dir: string): string {
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? version;
  } catch {
    // A directory of CSV files without a package is fingerprinted by the files alone.
  }
  const files = [ASN_FILES.v4, ASN_FILES.v6].map((file) => {
    try {
      const stat = statSync(join(dir, file));
      return `${file}:${stat.size}:${Math.trunc(stat.mtimeMs)}`;
    } catch (error) {
      throw new AsnDataError(`${join(dir, file)}: ${(error as Error).message}`);
    }
  });
  return [version, ...files].join('|');
}

/** One name per data version, so a new version never overwrites a file another process maps. */
export function asnCacheFileName(fingerprint: string): string {
  return `asn-${new Bun.CryptoHasher('sha256').update(fingerprint).digest('hex').slice(0, 16)}.bin`;
}

/** The arrays of one table in file order, with the count of 32-bit words each takes. */
function sections(arrays: AsnArrays): Uint32Array[] {
  return [arrays.v4Start, arrays.v4End, arrays.v4Entry, arrays.v6Start, arrays.v6End, arrays.v6Entry, arrays.entryAsn, arrays.orgOffsets];
}

export function serializeAsnArrays(arrays: AsnArrays, fingerprint: string): Uint8Array {
  const print = new TextEncoder().encode(fingerprint);
  const headerBytes = MAGIC.length + 4 * HEADER_WORDS + align4(print.length);
  const words = sections(arrays).reduce((sum, section) => sum + section.length, 0);
  const bytes = new Uint8Array(headerBytes + 4 * words + arrays.orgBytes.length);
  bytes.set(new TextEncoder().encode(MAGIC));
  const header = [ENDIAN_PROBE, FORMAT, arrays.v4Start.length, arrays.v6Entry.length, arrays.entryAsn.length, arrays.orgBytes.length, print.length];
  new Uint32Array(bytes.buffer, MAGIC.length, HEADER_WORDS).set(header);
  bytes.set(print, MAGIC.length + 4 * HEADER_WORDS);
  let offset = headerBytes;
  for (const section of sections(arrays)) {
    new Uint32Array(bytes.buffer, offset, section.length).set(section);
    offset += 4 * section.length;
  }
  bytes.set(arrays.orgBytes, offset);
  return bytes;
}

/** Views into `bytes` (no copy), or null when they are not a cache of this format and fingerprint. */
export function deserializeAsnArrays(bytes: Uint8Array, fingerprint: string): AsnArrays | null {
  if (bytes.length < MAGIC.length + 4 * HEADER_WORDS || bytes.byteOffset % 4 !== 0) return null;
  if (new TextDecoder().decode(bytes.subarray(0, MAGIC.length)) !== MAGIC) return null;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + MAGIC.length, HEADER_WORDS);
  const [probe, format, v4Rows, v6Rows, entries, orgLength, printLength] = words as unknown as number[];
  if (probe !== ENDIAN_PROBE || format !== FORMAT) return null;
  const printAt = MAGIC.length + 4 * HEADER_WORDS;
  if (printAt + printLength! > bytes.length) return null;
  if (new TextDecoder().decode(bytes.subarray(printAt, printAt + printLength!)) !== fingerprint) return null;
  const counts = [v4Rows!, v4Rows!, v4Rows!, 4 * v6Rows!, 4 * v6Rows!, v6Rows!, entries!, entries! + 1];
  let offset = printAt + align4(printLength!);
  if (offset + 4 * counts.reduce((sum, n) => sum + n, 0) + orgLength! !== bytes.length) return null;
  const views = counts.map((count) => {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + offset, count);
    offset += 4 * count;
    return view;
  });
  const [v4Start, v4End, v4Entry, v6Start, v6End, v6Entry, entryAsn, orgOffsets] = views as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  if (orgOffsets[entries!] !== orgLength) return null;
  const orgBytes = bytes.subarray(offset, offset + orgLength!);
  return { v4Start, v4End, v4Entry, v6Start, v6End, v6Entry, entryAsn, orgOffsets, orgBytes };
}

function mapCache(path: string, fingerprint: string): AsnArrays | null {
  try {
    // MAP_PRIVATE: nothing written through the views could reach the file.
    return deserializeAsnArrays(Bun.mmap(path, { shared: false }), fingerprint);
  } catch {
    return null;
  }
}

const loaded = new Map<string, AsnTable>();

function readCsv(dir: string, file: string): string {
  try {
    return readFileSync(join(dir, file), 'utf8');
  } catch (error) {
    throw new AsnDataError(`${join(dir, file)}: ${(error as Error).message}`);
  }
}

export interface AsnLoadOptions {
  /** A directory holding asn-ipv4-num.csv and asn-ipv6-num.csv; default @ip-location-db/asn. */
  dir?: string;
  /** Where the binary copy lives (DATA_DIR/ipintel in the service); none: parsed into memory. */
  cacheDir?: string;
}

/**
 * The table of the CSV files in `dir`, once per process. With a `cacheDir`, through the cache
 * file: a missing, stale or damaged one is rebuilt from the CSV files, and one that cannot be
 * written (a read-only directory) leaves the table parsed in memory, with one line on stderr.
 */
export function loadAsnTable({ dir = DEFAULT_ASN_DIR, cacheDir }: AsnLoadOptions = {}): AsnTable {
  const existing = loaded.get(dir);
  if (existing) return existing;
  const parse = () => parseAsnArrays(readCsv(dir, ASN_FILES.v4), readCsv(dir, ASN_FILES.v6));
  const table = asnTableOf(cacheDir === undefined ? parse() : throughCache(cacheDir, dir, parse));
  loaded.set(dir, table);
  return table;
}

function throughCache(cacheDir: string, dir: string, parse: () => AsnArrays): AsnArrays {
  const fingerprint = asnFingerprint(dir);
  const name = asnCacheFileName(fingerprint);
  const path = join(cacheDir, name);
  const cached = mapCache(path, fingerprint);
  if (cached) return cached;
  const parsed = parse();
  try {
    mkdirSync(cacheDir, { recursive: true });
    writeAtomically(path, serializeAsnArrays(parsed, fingerprint));
    removeStale(cacheDir, name);
  } catch (error) {
    console.error(`ASN cache ${path} not written (${(error as Error).message}); the table stays in this process's memory`);
    return parsed;
  }
  return mapCache(path, fingerprint) ?? parsed;
}

/** Caches of earlier data versions; a process still mapping one keeps its pages until it ends. */
function removeStale(cacheDir: string, keep: string): void {
  for (const file of readdirSync(cacheDir)) {
    if (file !== keep && /^asn-[0-9a-f]{16}\.bin$/.test(file)) rmSync(join(cacheDir, file), { force: true });
  }
}
