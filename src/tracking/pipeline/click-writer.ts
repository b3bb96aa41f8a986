import { appendFileSync } from 'node:fs';
import type { Db } from '../../db/db';
import { isDataRefused } from '../../db/errors';
import { errorMessage } from '../../shared/error-message';
import type { ClickRecord } from '../click.model';
import { parseLines } from './journal/parse-lines';
import { capturedClick } from './click-capture';
import type { ImpressionRecord, JournalEntry } from '../tracking.model';
import { insertClicks, insertImpressions } from './records.repo';

/**
 * Writes one batch of journaled records to Postgres: enriches the clicks, then inserts clicks
 * and impressions idempotently. The click pipeline hands it batches in journal order and
 * commits each from the journal once `write` resolves. In process (click-writer.ts) or on a
 * thread of its own with its own connections (click-writer.thread.ts), behind this interface.
 */
export interface ClickWriter {
  /**
   * `lines`: `count` journal lines (JournalEntry JSON) joined by '\n', as the journal holds them
   * (UTF-8), so that a writer on another thread decodes them there. `sideBySide` (default true)
   * runs the batch's statements at once, on several connections; false runs them one after another.
   */
  write(lines: Uint8Array, count: number, options?: WriteOptions): Promise<void>;
  /**
   * Starts now what the first write would otherwise wait for: a writer thread, its connections
   * and its enrichment data. The pipeline calls it as it starts, so that the first click of a new
   * node is stored within a conversion's wait for it (src/tracking/click-arrival.ts).
   */
  prepare?(): void;
  close(): Promise<void>;
}

export type Enrich = (click: ClickRecord) => ClickRecord;

export interface WriteOptions {
  sideBySide?: boolean;
}

export interface ClickWriterDeps {
  db: Db;
  enrich: Enrich;
  /** Where records the database refused outright are kept (one JSON line each), so they hold back nothing and are not lost. */
  setAsidePath: string;
  /**
   * Clicks enriched between two yields to the event loop, when it also serves requests (it also
   * yields between two statements); undefined on a thread of its own, which need not yield.
   */
  yieldEvery?: number;
  /** Records per INSERT (default STATEMENT_ROWS). */
  statementRows?: number;
}

/** Records per statement (a COPY, or the INSERT of copyOrSkipStored in records.repo.ts). */
export const STATEMENT_ROWS = 128;
/**
 * Records per statement on the embedded store: PGlite runs each statement to its end on the event
 * loop that answers requests, and smaller statements cost the same per row while holding it less.
 */
export const EMBEDDED_STATEMENT_ROWS = 32;

export function createClickWriter(deps: ClickWriterDeps): ClickWriter {
  return {
    write: (lines, count, options = {}) => writeBatch(deps, parseLines<JournalEntry>(lines, count), options.sideBySide ?? true),
    close: async () => {},
  };
}

async function writeBatch(deps: ClickWriterDeps, entries: JournalEntry[], sideBySide: boolean): Promise<void> {
  const rows = deps.statementRows ?? STATEMENT_ROWS;
  const statements = statementsOn(deps, sideBySide);
  const clicks: ClickRecord[] = [];
  const impressions: ImpressionRecord[] = [];
  let enrichedSinceYield = 0;
  for (const entry of entries) {
    if (entry.k === 'c') {
      if (deps.yieldEvery !== undefined && ++enrichedSinceYield > deps.yieldEvery) {
        enrichedSinceYield = 1;
        await yieldToRequests();
      }
      clicks.push(enriched(deps.enrich, capturedClick(entry)));
      // Side by side, a statement starts as soon as its records are enriched: the database
      // writes it while the next ones are enriched. One after another, nothing starts before
      // the batch is enriched, so the writer and the database never take two cores at once.
      if (sideBySide && clicks.length % rows === 0) await statements.start(clicks.slice(clicks.length - rows), insertClicks);
    } else {
      impressions.push(entry.r);
    }
  }
  const unstarted = sideBySide ? clicks.length % rows : clicks.length;
  for (let offset = clicks.length - unstarted; offset < clicks.length; offset += rows) {
    await statements.start(clicks.slice(offset, offset + rows), insertClicks);
  }
  for (let offset = 0; offset < impressions.length; offset += rows) await statements.start(impressions.slice(offset, offset + rows), insertImpressions);
  try {
    await statements.settled();
  } catch (error) {
    if (!isDataRefused(error)) throw error;
    // One record the database cannot take would otherwise hold back every record behind it
    // forever: the batch is written again record by record, and only the refused ones are set aside.
    await insertOneByOne(deps, clicks, impressions);
  }
}

type Insert<T> = (db: Db, records: readonly T[]) => Promise<void>;

/**
 * A batch's statements. Side by side on the pool, the database's latency is paid once per
 * batch; one after another they use one connection (and one core) at a time.
 */
function statementsOn(deps: ClickWriterDeps, sideBySide: boolean) {
  const running: Promise<void>[] = [];
  return {
    async start<T>(records: T[], insert: Insert<T>): Promise<void> {
      if (running.length > 0) {
        if (!sideBySide) await running[running.length - 1]!.catch(() => {});
        // In process, the event loop gets a turn between two statements either way: PGlite
        // resolves a statement without handing the loop back.
        if (deps.yieldEvery !== undefined) await yieldToRequests();
      }
      const statement = insert(deps.db, records);
      statement.catch(() => {}); // observed by settled(); a failure during a yield is not unhandled
      running.push(statement);
    },
    /**
     * Every statement settles before the batch is judged, so a retry never races one still
     * running; a failure that is not about the records themselves (a lost connection) decides.
     */
    async settled(): Promise<void> {
      const failures = (await Promise.allSettled(running)).flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
      if (failures.length > 0) throw failures.find((error) => !isDataRefused(error)) ?? failures[0];
    },
  };
}

async function insertOneByOne(deps: ClickWriterDeps, clicks: ClickRecord[], impressions: ImpressionRecord[]): Promise<void> {
  const each = async <T extends ClickRecord | ImpressionRecord>(kind: 'click' | 'impression', records: T[], insert: Insert<T>) => {
    for (const record of records) {
      try {
        await insert(deps.db, [record]);
      } catch (error) {
        if (!isDataRefused(error)) throw error;
        setAside(deps.setAsidePath, kind, record, error);
      }
    }
  };
  await each('click', clicks, insertClicks);
  await each('impression', impressions, insertImpressions);
}

/**
 * Written before the batch is committed from the journal: a crash in between replays the
 * batch, and the record is set aside again (a duplicate line, never a lost record).
 */
function setAside(path: string, kind: 'click' | 'impression', record: ClickRecord | ImpressionRecord, error: unknown): void {
  const { code } = error as { code?: string };
  appendFileSync(path, `${JSON.stringify({ kind, code, error: errorMessage(error), at: new Date().toISOString(), record })}\n`);
  console.error(`click pipeline: the database refused ${kind} ${record.id} (${code}: ${errorMessage(error)}); kept in ${path}`);
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A click that enrichment cannot handle is still stored as captured: losing it would be worse. */
function enriched(enrich: Enrich, click: ClickRecord): ClickRecord {
  try {
    return enrich(click);
  } catch (error) {
    console.error(`click pipeline: enrichment failed for click ${click.id}:`, errorMessage(error));
    return click;
  }
}
