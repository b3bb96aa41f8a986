import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Db } from '../../../src/db/db';
import { clickTombstonesOf } from '../../../src/tracking/pipeline/click-tombstones';
import { createClickWriter, EMBEDDED_STATEMENT_ROWS, STATEMENT_ROWS } from '../../../src/tracking/pipeline/click-writer';
import type { JournalEntry } from '../../../src/tracking/tracking.model';
import { tempDir } from '../../support/temp-dir';
import { makeClick } from '../support';

/**
 * When a batch's statements start against its enrichment, on a database that records each COPY
 * and takes a few milliseconds over it. No real database: the order of events is the subject.
 */
function timeline() {
  const events: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const db = {
    kind: 'postgres',
    // The click tombstones the writer reads (none), read once before the timeline starts.
    query: async () => [],
    copyFrom: async (_table: string, _columns: readonly string[], text: string) => {
      events.push(`copy ${text.split('\n').length - 1}`);
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await Bun.sleep(5);
      running--;
    },
  } as unknown as Db;
  let enrichedCount = 0;
  const writer = createClickWriter({
    db,
    enrich: (click) => {
      events.push(`enrich ${enrichedCount++}`);
      return click;
    },
    setAsidePath: join(tempDir('writer'), 'refused.jsonl'),
  });
  return { events, writer, mostAtOnce: () => mostAtOnce, ready: clickTombstonesOf(db).load() };
}

const ORG = '00000000-0000-4000-8000-000000000001';
const batchOf = (clicks: number) => {
  const entries: JournalEntry[] = Array.from({ length: clicks }, () => ({ k: 'c', r: makeClick(ORG) }));
  return { bytes: new TextEncoder().encode(entries.map((entry) => JSON.stringify(entry)).join('\n')), count: clicks };
};

describe('click writer statements', () => {
  test('side by side, each statement starts once its records are enriched, while the next ones are', async () => {
    const { events, writer, mostAtOnce, ready } = timeline();
    await ready;
    const batch = batchOf(4 * STATEMENT_ROWS);
    await writer.write(batch.bytes, batch.count, { sideBySide: true });
    const copies = events.flatMap((event, at) => (event.startsWith('copy') ? [at] : []));
    expect(copies).toHaveLength(4);
    for (const at of copies) expect(events[at]).toBe(`copy ${STATEMENT_ROWS}`);
    // The first COPY comes right after the statement's last record is enriched, before the next record.
    expect(events[copies[0]! - 1]).toBe(`enrich ${STATEMENT_ROWS - 1}`);
    expect(events[copies[0]! + 1]).toBe(`enrich ${STATEMENT_ROWS}`);
    expect(mostAtOnce()).toBeGreaterThan(1);
  });

  test('one after another, nothing starts before the batch is enriched, and one statement runs at a time', async () => {
    const { events, writer, mostAtOnce, ready } = timeline();
    await ready;
    const batch = batchOf(4 * STATEMENT_ROWS + 5);
    await writer.write(batch.bytes, batch.count, { sideBySide: false });
    const firstCopy = events.findIndex((event) => event.startsWith('copy'));
    expect(events[firstCopy - 1]).toBe(`enrich ${4 * STATEMENT_ROWS + 4}`);
    expect(events.slice(firstCopy)).toEqual([...Array(4).fill(`copy ${STATEMENT_ROWS}`), 'copy 5']);
    expect(mostAtOnce()).toBe(1);
  });

  test('a batch that is not a whole number of statements writes its rest side by side too', async () => {
    const { events, writer, ready } = timeline();
    await ready;
    const batch = batchOf(STATEMENT_ROWS + 7);
    await writer.write(batch.bytes, batch.count, { sideBySide: true });
    expect(events.filter((event) => event.startsWith('copy'))).toEqual([`copy ${STATEMENT_ROWS}`, 'copy 7']);
    expect(events.indexOf(`copy ${STATEMENT_ROWS}`)).toBeLessThan(events.indexOf(`enrich ${STATEMENT_ROWS + 6}`));
  });
});

describe('click writer in process (the embedded store): requests get a turn between statements', () => {
  /**
   * PGlite runs a statement to its end on the event loop and resolves it without handing the
   * loop back: a database that does the same, and a stand-in for requests (a task queued on
   * the loop again and again) that marks each turn it gets.
   */
  async function statementsAndTurns(sideBySide: boolean) {
    const events: string[] = [];
    const db = {
      kind: 'pglite',
      query: async () => [],
      copyFrom: async () => {
        events.push('copy');
      },
    } as unknown as Db;
    const writer = createClickWriter({
      db,
      enrich: (click) => click,
      setAsidePath: join(tempDir('writer'), 'refused.jsonl'),
      statementRows: EMBEDDED_STATEMENT_ROWS,
      yieldEvery: 32,
    });
    let writing = true;
    const requests = (async () => {
      while (writing) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        events.push('turn');
      }
    })();
    const batch = batchOf(8 * EMBEDDED_STATEMENT_ROWS);
    await clickTombstonesOf(db).load();
    await writer.write(batch.bytes, batch.count, { sideBySide });
    writing = false;
    await requests;
    return events;
  }

  for (const sideBySide of [false, true]) {
    test(sideBySide ? 'side by side' : 'one after another', async () => {
      const events = await statementsAndTurns(sideBySide);
      const copies = events.flatMap((event, at) => (event === 'copy' ? [at] : []));
      expect(copies).toHaveLength(8);
      // Eight statements of 32 rows hold the loop 1 to 2 ms each on PGlite: never two in a row.
      for (let i = 1; i < copies.length; i++) expect(events.slice(copies[i - 1]! + 1, copies[i]!)).toContain('turn');
    });
  }
});
