import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomically } from '../../shared/files/write-atomically';
import { classifyAll } from './asn-classifier';
import type { AsnTable } from './asn-table';
import {
  ASN_TYPES_DIR,
  asnTypeFileName,
  LISTED_TYPES,
  readAsnTypeFile,
  serializeAsnTypeFile,
  sortedUnique,
  type AsnTypeFile,
  type ListedType,
} from './asn-types';

/** A public list of hosting and VPN ASNs, one `AS<number> # comment` per line. */
export const X4BNET_DATACENTER_ASNS = 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/datacenter/ASN.txt';

/** No public list of mobile-carrier ASNs is kept up to date; that list comes from the classifier alone. */
export const DEFAULT_SOURCES: Readonly<Record<ListedType, readonly string[]>> = { datacenter: [X4BNET_DATACENTER_ASNS], mobile: [] };

/** The published list is tens of kilobytes; far more is not that list. */
const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
/** A download with fewer entries is a truncated or wrong document, not the list. */
export const MIN_DOWNLOADED_ASNS = 50;
/** A new list keeping less than this share of the current one is refused unless forced. */
const MIN_KEPT_SHARE = 0.5;
const MAX_ASN = 0xffff_ffff;

export interface AsnRefreshOptions {
  /** The ASN data the classifier reads, and how its version is named in `source`. */
  asnData: { table: AsnTable; version: string };
  dir?: string;
  sources?: Readonly<Record<ListedType, readonly string[]>>;
  /** Rebuild from the ASN data alone, without downloading. */
  offline?: boolean;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  timeoutMs?: number;
  dryRun?: boolean;
  /** Accept a list that lost more than half its entries. */
  force?: boolean;
  now?: () => Date;
}

export type AsnRefreshOutcome =
  | { type: ListedType; file: string; status: 'updated' | 'unchanged'; source: string; before: number; after: number; warnings: string[] }
  | { type: ListedType; file: string; status: 'failed'; errors: string[] };

export class AsnListError extends Error {}

/** A downloaded list: every line blank, a `#` comment, or an AS number with an optional comment. */
export function parseAsnList(text: string, where: string): number[] {
  const asns: number[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    const match = /^(?:AS)?(\d{1,10})$/i.exec(line);
    const asn = match ? Number(match[1]) : NaN;
    if (!(asn >= 1 && asn <= MAX_ASN)) throw new AsnListError(`${where}:${index + 1}: "${raw.slice(0, 80)}" is not an AS number`);
    asns.push(asn);
  });
  const unique = sortedUnique(asns);
  if (unique.length < MIN_DOWNLOADED_ASNS) throw new AsnListError(`${where}: only ${unique.length} AS numbers, expected at least ${MIN_DOWNLOADED_ASNS}`);
  return unique;
}

async function download(url: string, fetchFn: NonNullable<AsnRefreshOptions['fetch']>, timeoutMs: number): Promise<number[]> {
  const response = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'text/plain' }, redirect: 'follow' });
  if (response.status !== 200) throw new AsnListError(`HTTP ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOCUMENT_BYTES) throw new AsnListError(`document of ${declared} bytes is too large`);
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new AsnListError(`document of ${text.length} characters is too large`);
  return parseAsnList(text, url);
}

/**
 * Rebuilds both lists: the classifier over the ASN data's organisation names, joined with each
 * configured download that validates. A download that fails leaves its part out and says so;
 * a list that would lose more than half its entries is refused unless forced. The datacenter
 * list is built first and the mobile list never repeats its numbers.
 */
export async function refreshAsnTypes(options: AsnRefreshOptions): Promise<AsnRefreshOutcome[]> {
  const dir = options.dir ?? ASN_TYPES_DIR;
  const sources = options.sources ?? DEFAULT_SOURCES;
  const fetchFn = options.fetch ?? ((url, init) => fetch(url, init));
  const classified = classifyAll(options.asnData.table.records());
  const outcomes: AsnRefreshOutcome[] = [];
  const datacenter = new Set<number>();
  for (const type of LISTED_TYPES) {
    const file = asnTypeFileName(type);
    const current = existsSync(join(dir, file)) ? readAsnTypeFile(type, dir) : null;
    const parts = [`classifier over @ip-location-db/asn ${options.asnData.version}`];
    const warnings: string[] = [];
    const asns = new Set(classified[type]);
    for (const url of options.offline ? [] : sources[type]) {
      try {
        for (const asn of await download(url, fetchFn, options.timeoutMs ?? 30_000)) asns.add(asn);
        parts.push(url);
      } catch (error) {
        warnings.push(`${url}: ${(error as Error).message}; left out of this list`);
      }
    }
    const list = sortedUnique([...asns].filter((asn) => type === 'datacenter' || !datacenter.has(asn)));
    const before = current?.asns.length ?? 0;
    if (list.length === 0 || (!options.force && list.length < before * MIN_KEPT_SHARE)) {
      // The shipped datacenter list stays, so the mobile list must keep clear of it.
      if (type === 'datacenter') current?.asns.forEach((asn) => datacenter.add(asn));
      outcomes.push({ type, file, status: 'failed', errors: [...warnings, `only ${list.length} ASNs against ${before} today; rerun with --force if that is right`] });
      continue;
    }
    if (type === 'datacenter') list.forEach((asn) => datacenter.add(asn));
    const source = parts.join(' + ');
    const unchanged = current !== null && current.source === source && sameList(current.asns, list);
    if (!unchanged && !options.dryRun) {
      const next: AsnTypeFile = { source, updated_at: (options.now?.() ?? new Date()).toISOString(), asns: list };
      writeAtomically(join(dir, file), serializeAsnTypeFile(next));
    }
    outcomes.push({ type, file, status: unchanged ? 'unchanged' : 'updated', source, before, after: list.length, warnings });
  }
  return outcomes;
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((asn, index) => asn === b[index]);
}
