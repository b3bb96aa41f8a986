import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createGroupCommit } from '../../src/shared/group-commit';

/** A write that records each statement's items and answers when the test lets it. */
function recordingWrite<I>(answer: (item: I) => unknown = (item) => item) {
  const statements: I[][] = [];
  const gates: (() => void)[] = [];
  let held = false;
  return {
    statements,
    hold: () => (held = true),
    releaseAll() {
      held = false;
      gates.splice(0).forEach((open) => open());
    },
    async write(items: I[]) {
      statements.push(items);
      if (held) await new Promise<void>((open) => gates.push(open));
      return items.map(answer);
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('group commit', () => {
  test('an item alone is written at once, by itself', async () => {
    const w = recordingWrite<number>();
    const group = createGroupCommit({ write: w.write });
    expect(await group.submit(7)).toBe(7);
    expect(w.statements).toEqual([[7]]);
    expect(group.pending()).toBe(0);
  });

  test('items that arrive while statements are in flight share the next statement', async () => {
    const w = recordingWrite<number>((n) => n * 10);
    w.hold();
    const group = createGroupCommit({ write: w.write, maxInFlight: 1 });
    const first = group.submit(1);
    await settle();
    const rest = [2, 3, 4, 5].map((n) => group.submit(n));
    await settle();
    expect(w.statements).toEqual([[1]]);
    expect(group.pending()).toBe(5);
    w.releaseAll();
    await first;
    await settle();
    w.releaseAll();
    expect(await Promise.all(rest)).toEqual([20, 30, 40, 50]);
    expect(w.statements).toEqual([[1], [2, 3, 4, 5]]);
  });

  test('a statement holds at most maxBatch items', async () => {
    const w = recordingWrite<number>();
    w.hold();
    const group = createGroupCommit({ write: w.write, maxBatch: 2, maxInFlight: 1 });
    const all = [1, 2, 3, 4, 5].map((n) => group.submit(n));
    for (let i = 0; i < 5; i++) {
      await settle();
      w.releaseAll();
    }
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5]);
    expect(w.statements).toEqual([[1, 2], [3, 4], [5]]);
  });

  test('items with the same key never share a statement nor run at the same time', async () => {
    const w = recordingWrite<{ key: string; n: number }>((item) => item.n);
    w.hold();
    const group = createGroupCommit({ write: w.write, keyOf: (item) => item.key, maxInFlight: 4 });
    const all = [{ key: 'a', n: 1 }, { key: 'a', n: 2 }, { key: 'b', n: 3 }].map((item) => group.submit(item));
    await settle();
    expect(w.statements.map((s) => s.map((i) => i.n))).toEqual([[1, 3]]); // 2 waits for 1 to finish
    w.releaseAll();
    await settle();
    await settle();
    w.releaseAll();
    expect(await Promise.all(all)).toEqual([1, 2, 3]);
    expect(w.statements.map((s) => s.map((i) => i.n))).toEqual([[1, 3], [2]]);
  });

  test('a refused statement is retried item by item, so only the bad item fails', async () => {
    const statements: number[][] = [];
    const group = createGroupCommit<number, number>({
      write: async (items) => {
        statements.push(items);
        if (items.includes(13)) throw Object.assign(new Error('bad row'), { code: '22P02' });
        return items;
      },
      retryAlone: () => true,
      maxInFlight: 1,
    });
    await group.submit(1);
    const batch = [12, 13, 14].map((n) => group.submit(n).then((v) => ({ ok: v }), (e: Error) => ({ error: e.message })));
    expect(await Promise.all(batch)).toEqual([{ ok: 12 }, { error: 'bad row' }, { ok: 14 }]);
    expect(statements).toEqual([[1], [12, 13, 14], [12], [13], [14]]);
  });

  test('onCommitted is told the items of every committed statement, and nothing of a failed one', async () => {
    const committed: number[] = [];
    const group = createGroupCommit<number, number>({
      write: async (items) => {
        if (items.includes(13)) throw Object.assign(new Error('bad row'), { code: '22P02' });
        return items;
      },
      retryAlone: () => true,
      maxInFlight: 1,
      onCommitted: (items) => committed.push(items),
    });
    await group.submit(1);
    await Promise.allSettled([2, 3, 4].map((n) => group.submit(n)));
    await Promise.allSettled([12, 13, 14].map((n) => group.submit(n)));
    // [1] alone, [2, 3, 4] together; [12, 13, 14] failed, then 12 and 14 committed alone, 13 failed again.
    expect(committed).toEqual([1, 3, 1, 1]);
  });

  test('a statement that may have committed is not retried: every item sees the error', async () => {
    let calls = 0;
    const group = createGroupCommit<number, number>({
      write: async () => {
        calls++;
        throw new Error('connection lost');
      },
      retryAlone: () => false,
    });
    const results = await Promise.allSettled([group.submit(1), group.submit(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
  });

  test('a write that answers the wrong number of results fails its items instead of misrouting them', async () => {
    const group = createGroupCommit<number, number>({ write: async (items) => items.slice(1) });
    const results = await Promise.allSettled([group.submit(1), group.submit(2)]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
  });

  test('property: every item gets its own result exactly once, whatever the arrival pattern', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: null }), delay: fc.nat(3) }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 3 }),
        async (items, maxBatch, maxInFlight) => {
          const running = new Set<string>();
          let overlap = false;
          const group = createGroupCommit<{ key: string | null; n: number }, number>({
            write: async (batch) => {
              const keys = batch.map((i) => i.key).filter((k): k is string => k !== null);
              if (new Set(keys).size !== keys.length || keys.some((k) => running.has(k))) overlap = true;
              keys.forEach((k) => running.add(k));
              await settle();
              keys.forEach((k) => running.delete(k));
              return batch.map((i) => i.n);
            },
            keyOf: (i) => i.key,
            maxBatch,
            maxInFlight,
          });
          const results = await Promise.all(
            items.map(async ({ key, delay }, n) => {
              for (let i = 0; i < delay; i++) await settle();
              return group.submit({ key, n });
            }),
          );
          expect(results).toEqual(items.map((_, n) => n));
          expect(overlap).toBe(false);
          expect(group.pending()).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });
});
