import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomically } from '../../shared/files/write-atomically';
import { parseRangeFile, RANGES_DIR, readRangeFile, serializeRangeFile, type RangeFile } from './bot-ranges';
import { CRAWLERS, type Crawler } from './crawlers';

/** The published files are tens of kilobytes; anything far larger is not one of them. */
const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

/**
 * A download keeping fewer than this share of the current prefixes is refused unless forced:
 * a truncated or partial list would make real crawlers look spoofed until the next refresh.
 */
const MIN_KEPT_SHARE = 0.5;

export interface RefreshOptions {
  dir?: string;
  crawlers?: readonly Crawler[];
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  timeoutMs?: number;
  /** Validate and report, write nothing. */
  dryRun?: boolean;
  /** Accept a download even when it shrinks the list by more than half. */
  force?: boolean;
}

export type RefreshOutcome =
  | { file: string; status: 'updated' | 'unchanged'; source: string; before: number; after: number }
  | { file: string; status: 'failed'; errors: string[] };

/**
 * Downloads every engine's published ranges and replaces a shipped file only with a document that
 * validates (parseRangeFile) and keeps most of the current list, written beside the old one and
 * renamed over it so a reader never sees half a file.
 */
export async function refreshBotRanges(options: RefreshOptions = {}): Promise<RefreshOutcome[]> {
  const dir = options.dir ?? RANGES_DIR;
  const fetchFn = options.fetch ?? ((url, init) => fetch(url, init));
  const outcomes: RefreshOutcome[] = [];
  for (const crawler of options.crawlers ?? CRAWLERS) {
    if (!crawler.ranges) continue;
    const { file, sources } = crawler.ranges;
    const current = existsSync(join(dir, file)) ? readRangeFile(file, dir) : null;
    const errors: string[] = [];
    let accepted: { source: string; ranges: RangeFile } | null = null;
    for (const source of sources) {
      try {
        const ranges = await download(source, fetchFn, options.timeoutMs ?? 30_000);
        const before = current?.prefixes.length ?? 0;
        if (!options.force && ranges.prefixes.length < before * MIN_KEPT_SHARE) {
          throw new Error(`only ${ranges.prefixes.length} prefixes against ${before} today; rerun with --force if that is right`);
        }
        accepted = { source, ranges };
        break;
      } catch (error) {
        errors.push(`${source}: ${(error as Error).message}`);
      }
    }
    if (!accepted) {
      outcomes.push({ file, status: 'failed', errors });
      continue;
    }
    const before = current?.prefixes.length ?? 0;
    const after = accepted.ranges.prefixes.length;
    const unchanged = current !== null && current.creationTime === accepted.ranges.creationTime && sameList(current.prefixes, accepted.ranges.prefixes);
    if (!unchanged && !options.dryRun) writeAtomically(join(dir, file), serializeRangeFile(accepted.ranges));
    outcomes.push({ file, status: unchanged ? 'unchanged' : 'updated', source: accepted.source, before, after });
  }
  return outcomes;
}

async function download(url: string, fetchFn: NonNullable<RefreshOptions['fetch']>, timeoutMs: number): Promise<RangeFile> {
  const response = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' }, redirect: 'follow' });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOCUMENT_BYTES) throw new Error(`document of ${declared} bytes is too large`);
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new Error(`document of ${text.length} characters is too large`);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new Error('not JSON');
  }
  return parseRangeFile(document, url);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((cidr) => set.has(cidr));
}
