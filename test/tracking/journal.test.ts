import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalBusy, openJournal } from '../../src/tracking/journal';

const freshDir = () => mkdtempSync(join(tmpdir(), 'svc-journal-'));
const segmentFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.jsonl'));

describe('journal', () => {
  test('records come back in append order, across in-memory and disk-only segments, whatever the interleaving', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('consume' as const), max: fc.integer({ min: 1, max: 30 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 3 }), (ops, segmentRecords, memorySegments) => {
        const dir = freshDir();
        const journal = openJournal<{ n: number }>(dir, { segmentRecords, memorySegments });
        const model: number[] = [];
        let next = 0;
        for (const step of ops) {
          if (step.kind === 'append') {
            for (let i = 0; i < step.count; i++) {
              journal.append({ n: next });
              model.push(next++);
            }
          } else {
            const batch = journal.peek(step.max);
            if (!batch) {
              expect(model).toEqual([]);
              continue;
            }
            expect(batch.records.map((r) => r.n)).toEqual(model.slice(0, batch.records.length));
            batch.commit();
            model.splice(0, batch.records.length);
          }
          expect(journal.pending()).toBe(model.length);
          expect(journal.memoryRecords()).toBeLessThanOrEqual(segmentRecords * (memorySegments + 1));
        }
        // After a "crash" (reopen without consuming) every uncommitted record is still there, in
        // order; the committed head of a partly committed segment comes back too (inserts are
        // idempotent, so replaying it is harmless).
        journal.close();
        const reopened = openJournal<{ n: number }>(dir, { segmentRecords, memorySegments });
        const left: number[] = [];
        for (let batch = reopened.peek(7); batch; batch = reopened.peek(7)) {
          left.push(...batch.records.map((r) => r.n));
          batch.commit();
        }
        expect(left.slice(left.length - model.length)).toEqual(model);
        const from = left[0] ?? next;
        expect(left).toEqual(Array.from({ length: next - from }, (_, i) => from + i));
        expect(left.length - model.length).toBeLessThan(segmentRecords);
        reopened.close();
        expect(segmentFiles(dir)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  test('a segment file is deleted only once it is closed and fully committed', () => {
    const dir = freshDir();
    const journal = openJournal<{ n: number }>(dir, { segmentRecords: 3 });
    for (let n = 0; n < 7; n++) journal.append({ n });
    expect(segmentFiles(dir)).toHaveLength(3);
    const first = journal.peek(2)!;
    first.commit();
    expect(segmentFiles(dir)).toHaveLength(3);
    journal.peek(10)!.commit();
    expect(segmentFiles(dir)).toHaveLength(2);
    journal.peek(10)!.commit();
    journal.peek(10)!.commit();
    // The active segment stays until it is closed.
    expect(segmentFiles(dir)).toHaveLength(1);
    journal.close();
    expect(segmentFiles(dir)).toEqual([]);
  });

  test('a torn last line (the process died inside a write) is skipped on reopen', () => {
    const dir = freshDir();
    const path = join(dir, 'segment-000000000007.jsonl');
    writeFileSync(path, '{"n":1}\n{"n":2}\n');
    appendFileSync(path, '{"n":3,"trunc');
    const journal = openJournal<{ n: number }>(dir);
    expect(journal.pending()).toBe(2);
    expect(journal.peek(10)!.records).toEqual([{ n: 1 }, { n: 2 }]);
    journal.append({ n: 4 });
    expect(segmentFiles(dir)).toContain('segment-000000000008.jsonl');
    journal.close();
  });

  test('one process per journal directory', () => {
    const dir = freshDir();
    const journal = openJournal(dir);
    expect(() => openJournal(dir)).toThrow(JournalBusy);
    journal.close();
    expect(existsSync(join(dir, 'journal.pid'))).toBe(false);
    openJournal(dir).close();
  });

  test('a lock left by a dead process is taken over', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'journal.pid'), '2147483646');
    const journal = openJournal(dir);
    journal.close();
  });
});
