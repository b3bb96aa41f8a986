import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { existsSync, readdirSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openJournal } from '../../../../src/tracking/pipeline/journal/journal';
import { JournalBusy } from '../../../../src/tracking/pipeline/journal/journal-lock';
import { parseLines } from '../../../../src/tracking/pipeline/journal/parse-lines';
import { holdsSegments } from '../../../../src/tracking/pipeline/journal/segment-files';
import { tempDir } from '../../../support/temp-dir';

const segmentFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort();

interface Rec {
  n: number;
  text: string;
}

describe('journal', () => {
  test('records come back in append order across segments, whatever the interleaving, and after a reopen', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), texts: fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 30 }) }),
      fc.record({ kind: fc.constant('consume' as const), max: fc.integer({ min: 1, max: 25 }) }),
      fc.record({ kind: fc.constant('release' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.integer({ min: 400, max: 4000 }), async (ops, segmentBytes) => {
        const dir = tempDir('journal');
        const journal = openJournal<Rec>(dir, { segmentBytes });
        const model: Rec[] = [];
        let next = 0;
        for (const step of ops) {
          if (step.kind === 'append') {
            for (const text of step.texts) {
              const record = { n: next++, text };
              journal.append(record);
              model.push(record);
            }
          } else if (step.kind === 'release') {
            journal.release(journal.committed());
          } else {
            const batch = journal.peek(step.max);
            if (!batch) {
              expect(model).toEqual([]);
              continue;
            }
            expect(batch.records).toEqual(model.slice(0, batch.records.length));
            batch.commit();
            model.splice(0, batch.records.length);
          }
          expect(journal.pending()).toBe(model.length);
        }
        // After a "crash" (reopen without consuming) every uncommitted record is still there, in
        // order; committed records of a segment not released come back too (inserts are
        // idempotent, so replaying them is harmless).
        await journal.close();
        const reopened = openJournal<Rec>(dir, { segmentBytes });
        const left: Rec[] = [];
        for (let batch = reopened.peek(7); batch; batch = reopened.peek(7)) {
          left.push(...batch.records);
          batch.commit();
        }
        expect(left.slice(left.length - model.length)).toEqual(model);
        const from = left[0]?.n ?? next;
        expect(left.map((r) => r.n)).toEqual(Array.from({ length: next - from }, (_, i) => from + i));
        reopened.release(reopened.committed());
        await reopened.close();
        expect(readdirSync(dir)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  test('a segment file is deleted only once it is full, fully committed, and released', async () => {
    const dir = tempDir('journal');
    // Each record is about 80 bytes; the 3-bytes-per-character reserve fits three per segment.
    const journal = openJournal<Rec>(dir, { segmentBytes: 450 });
    for (let n = 0; n < 7; n++) journal.append({ n, text: 'x'.repeat(60) });
    expect(segmentFiles(dir)).toHaveLength(3);
    journal.peek(2)!.commit();
    journal.release(journal.committed());
    expect(segmentFiles(dir)).toHaveLength(3);
    expect(journal.releasable()).toBe(false);
    journal.peek(10)!.commit();
    // Committed, but kept until the store says its records are durable.
    expect(journal.releasable()).toBe(true);
    expect(segmentFiles(dir)).toHaveLength(3);
    journal.release(journal.committed());
    expect(journal.releasable()).toBe(false);
    await journal.deleted(); // deleted on the pool, not the event loop
    expect(segmentFiles(dir)).toHaveLength(2);
    journal.peek(10)!.commit();
    journal.peek(10)!.commit();
    journal.release(journal.committed());
    await journal.deleted();
    // The active segment stays until it is closed.
    expect(segmentFiles(dir)).toHaveLength(1);
    await journal.close();
    expect(segmentFiles(dir)).toEqual([]);
  });

  test('release deletes only the segments committed at or before the count it is given', async () => {
    const dir = tempDir('pipeline');
    const journal = openJournal<Rec>(dir, { segmentBytes: 450 }); // three records a segment
    for (let n = 0; n < 9; n++) journal.append({ n, text: 'x'.repeat(60) });
    journal.peek(3)!.commit();
    const durable = journal.committed(); // the store syncs from here
    journal.peek(3)!.commit(); // committed while it syncs
    journal.release(durable);
    await journal.deleted();
    expect(segmentFiles(dir)).toEqual(['segment-000000000002.jsonl', 'segment-000000000003.jsonl']);
    expect(journal.releasable()).toBe(true);
    // Commits go on past segments waiting for release.
    journal.peek(3)!.commit();
    expect(journal.pending()).toBe(0);
    await journal.close();
    // Closed without a release: the committed records stay, and are replayed by the next run.
    const reopened = openJournal<Rec>(dir, { segmentBytes: 450 });
    expect(reopened.pending()).toBe(6);
    reopened.peek(10)!.commit();
    reopened.peek(10)!.commit();
    reopened.release(reopened.committed());
    await reopened.close();
    expect(segmentFiles(dir)).toEqual([]);
  });

  test('readLines reads ahead of what is committed, across segments; commits go in reading order; rewind reads again from the oldest uncommitted', async () => {
    const dir = tempDir('journal');
    const journal = openJournal<Rec>(dir, { segmentBytes: 450 }); // three records a segment
    for (let n = 0; n < 7; n++) journal.append({ n, text: 'x'.repeat(60) });
    const numbers = (batch: { bytes: Uint8Array; count: number } | null) => (batch ? parseLines<Rec>(batch.bytes, batch.count).map((record) => record.n) : null);
    const first = journal.readLines(2)!;
    const second = journal.readLines(2)!;
    const third = journal.readLines(2)!;
    expect([numbers(first), numbers(second), numbers(third)]).toEqual([[0, 1], [2], [3, 4]]);
    // Read is not done: nothing is committed until the batches are, and only in order.
    expect(journal.pending()).toBe(7);
    expect(() => second.commit()).toThrow('journal: commit out of order');
    expect(() => third.commit()).toThrow('journal: commit out of order'); // a later segment's
    first.commit();
    second.commit();
    expect(journal.pending()).toBe(4);
    journal.release(journal.committed());
    await journal.deleted();
    expect(segmentFiles(dir)).toHaveLength(2); // the first segment, all committed and released, is gone
    // A failed write of the third batch: reading starts again at record 3.
    journal.rewind();
    const again = journal.readLines(10)!;
    expect(numbers(again)).toEqual([3, 4, 5]);
    expect(() => third.commit()).not.toThrow(); // the same records, from the same place
    expect(() => again.commit()).toThrow('journal: commit out of order');
    expect(numbers(journal.readLines(10))).toEqual([6]);
    expect(journal.readLines(10)).toBeNull();
    // peek always starts at the oldest uncommitted record.
    expect(journal.peek(10)!.records.map((record) => record.n)).toEqual([5]);
    await journal.close();
  });

  test('holdsSegments: a journal closed with records pending holds segments; one closed fully committed, or never opened, does not', async () => {
    const pendingDir = tempDir('journal');
    const pending = openJournal<Rec>(pendingDir);
    pending.append({ n: 1, text: 'kept' });
    await pending.close();
    expect(holdsSegments(pendingDir)).toBe(true);

    const writtenDir = tempDir('journal');
    const written = openJournal<Rec>(writtenDir);
    written.append({ n: 1, text: 'written' });
    written.peek(10)!.commit();
    written.release(written.committed());
    await written.close();
    expect(holdsSegments(writtenDir)).toBe(false);

    expect(holdsSegments(join(tempDir('journal'), 'journal'))).toBe(false);
  });

  test('a line cut short by a crash (no newline, zeros after it) is skipped on reopen', async () => {
    const dir = tempDir('journal');
    const torn = Buffer.concat([Buffer.from('{"n":1,"text":""}\n{"n":2,"text":"é"}\n{"n":3,"te'), Buffer.alloc(4096)]);
    writeFileSync(join(dir, 'segment-000000000007.jsonl'), torn);
    writeFileSync(join(dir, 'segment-000000000008.jsonl'), Buffer.alloc(4096));
    const journal = openJournal<Rec>(dir);
    expect(journal.pending()).toBe(2);
    expect(segmentFiles(dir)).toEqual(['segment-000000000007.jsonl']);
    const batch = journal.peek(10)!;
    expect(batch.records).toEqual([{ n: 1, text: '' }, { n: 2, text: 'é' }]);
    journal.append({ n: 4, text: '' });
    expect(segmentFiles(dir)).toContain('segment-000000000009.jsonl');
    batch.commit();
    journal.release(journal.committed());
    await journal.deleted();
    expect(segmentFiles(dir)).toEqual(['segment-000000000009.jsonl']);
    await journal.close();
  });

  test('records with any text, including newlines and NUL characters, round-trip', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary' }), { maxLength: 20 }), async (texts) => {
        const dir = tempDir('journal');
        const journal = openJournal<Rec>(dir, { segmentBytes: 64 * 1024 });
        texts.forEach((text, n) => journal.append({ n, text }));
        await journal.close();
        const reopened = openJournal<Rec>(dir, { segmentBytes: 64 * 1024 });
        const batch = reopened.peek(100);
        expect(batch?.records ?? []).toEqual(texts.map((text, n) => ({ n, text })));
        batch?.commit();
        await reopened.close();
      }),
      { numRuns: 100 },
    );
  });

  test('staged appends wait for writeStaged or the next plain append, keep their order across segments, and come back after a reopen', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('stage' as const), texts: fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 20 }) }),
      fc.record({ kind: fc.constant('append' as const), text: fc.string({ maxLength: 40 }) }),
      fc.record({ kind: fc.constant('write' as const) }),
      fc.record({ kind: fc.constant('consume' as const), max: fc.integer({ min: 1, max: 25 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.integer({ min: 400, max: 4000 }), async (ops, segmentBytes) => {
        const dir = tempDir('journal');
        const journal = openJournal<Rec>(dir, { segmentBytes });
        const given: Rec[] = [];
        let written = 0; // records the model knows are written (staged ones may be written early, at a segment's end)
        let consumed = 0;
        for (const step of ops) {
          if (step.kind === 'stage') {
            journal.stageWhile(() => {
              for (const text of step.texts) {
                const record = { n: given.length, text };
                given.push(record);
                journal.append(record);
              }
            });
          } else if (step.kind === 'append') {
            given.push({ n: given.length, text: step.text });
            journal.append(given[given.length - 1]!);
            written = given.length;
          } else if (step.kind === 'write') {
            journal.writeStaged();
            written = given.length;
          } else {
            const batch = journal.peek(step.max);
            if (batch) {
              expect(batch.records).toEqual(given.slice(consumed, consumed + batch.records.length));
              batch.commit();
              consumed += batch.records.length;
            }
          }
          expect(journal.appended()).toBeGreaterThanOrEqual(written);
          expect(journal.appended()).toBeLessThanOrEqual(given.length);
        }
        expect(journal.stagedLosses()).toBe(0);
        await journal.close(); // writes what is still staged
        const reopened = openJournal<Rec>(dir, { segmentBytes });
        const left: Rec[] = [];
        for (let batch = reopened.peek(7); batch; batch = reopened.peek(7)) {
          left.push(...batch.records);
          batch.commit();
        }
        expect(left.slice(left.length - (given.length - consumed))).toEqual(given.slice(consumed));
        await reopened.close();
      }),
      { numRuns: 150 },
    );
  });

  test('staged records are not in the file until written; a failed write drops them, counts a loss and throws nothing', async () => {
    const dir = tempDir('journal');
    let failing = false;
    const writes: number[] = [];
    const journal = openJournal<Rec>(dir, {
      writeAt: (fd, bytes, length, position) => {
        if (failing) throw new Error('EIO: simulated');
        writes.push(length);
        return writeSync(fd, bytes, 0, length, position);
      },
    });
    journal.stageWhile(() => [1, 2, 3].forEach((n) => journal.append({ n, text: 'held' })));
    expect(journal.appended()).toBe(0);
    expect(journal.peek(10)).toBeNull();
    journal.writeStaged();
    expect(writes).toHaveLength(1); // three records, one write
    expect(journal.appended()).toBe(3);

    journal.stageWhile(() => [4, 5].forEach((n) => journal.append({ n, text: 'lost' })));
    failing = true;
    expect(() => journal.writeStaged()).not.toThrow();
    expect(journal.stagedLosses()).toBe(1);
    expect(() => journal.append({ n: 6, text: 'refused' })).toThrow('simulated');
    failing = false;
    journal.stageWhile(() => journal.append({ n: 7, text: 'after' }));
    journal.writeStaged();
    expect(journal.stagedLosses()).toBe(1);
    await journal.close();
    const reopened = openJournal<Rec>(dir);
    expect(reopened.peek(10)!.records.map((record) => record.n)).toEqual([1, 2, 3, 7]);
    await reopened.close();
  });

  test('a short write is not counted, and the next write goes over it', async () => {
    const dir = tempDir('journal');
    let short = true;
    const journal = openJournal<Rec>(dir, {
      writeAt: (fd, bytes, length, position) => (short ? ((short = false), writeSync(fd, bytes, 0, length - 3, position)) : writeSync(fd, bytes, 0, length, position)),
    });
    expect(() => journal.append({ n: 1, text: 'cut' })).toThrow('short');
    journal.append({ n: 2, text: 'whole' });
    await journal.close();
    const reopened = openJournal<Rec>(dir);
    expect(reopened.peek(10)!.records).toEqual([{ n: 2, text: 'whole' }]);
    await reopened.close();
  });

  test('a record larger than a segment is refused', async () => {
    const journal = openJournal<Rec>(tempDir('journal'), { segmentBytes: 300 });
    expect(() => journal.append({ n: 1, text: 'x'.repeat(200) })).toThrow('exceeds the segment size');
    await journal.close();
  });

  test('one process per journal directory', async () => {
    const dir = tempDir('journal');
    const journal = openJournal(dir);
    expect(() => openJournal(dir)).toThrow(JournalBusy);
    await journal.close();
    expect(existsSync(join(dir, 'journal.pid'))).toBe(false);
    await openJournal(dir).close();
  });

  test('a lock left by a dead process is taken over, and a half-prepared segment is discarded', async () => {
    const dir = tempDir('journal');
    writeFileSync(join(dir, 'journal.pid'), '2147483646');
    writeFileSync(join(dir, 'next-segment.tmp'), Buffer.alloc(100));
    const journal = openJournal(dir);
    await journal.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});
