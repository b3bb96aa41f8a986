import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { BATCH_MAX_EVENTS, EventQueue, QUEUE_CAP, type QueuedEvent } from '../src/queue';
import { createStore } from '../src/storage';
import { FakeStorage } from './support/fakes';

const event = (n: number): QueuedEvent => ({ name: `e${n}`, occurred_at: new Date(n).toISOString() });
const names = (events: QueuedEvent[]) => events.map((e) => e.name);

describe('event queue', () => {
  test('holds the spec\'s 500 events: past the cap the oldest are dropped and counted', () => {
    const queue = new EventQueue(createStore(new FakeStorage(), 'q:'));
    expect(QUEUE_CAP).toBe(500);
    for (let n = 0; n < 530; n++) queue.add(event(n));
    expect(queue.size()).toBe(500);
    expect(queue.dropped()).toBe(30);
    expect(queue.take(1)).toEqual([event(30)]);
  });

  test('persisted: a later page view (another instance on the same storage) finds the events', () => {
    const storage = new FakeStorage();
    const first = new EventQueue(createStore(storage, 'q:'));
    first.add(event(1));
    first.add(event(2));
    const second = new EventQueue(createStore(storage, 'q:'));
    expect(names(second.take())).toEqual(['e1', 'e2']);
    expect(first.size()).toBe(0);
  });

  test('take answers the oldest, at most 100 per call, and putBack returns a batch to the front in order', () => {
    const queue = new EventQueue(createStore(new FakeStorage(), 'q:'));
    for (let n = 0; n < 150; n++) queue.add(event(n));
    const batch = queue.take();
    expect(batch).toHaveLength(BATCH_MAX_EVENTS);
    expect(batch[0]).toEqual(event(0));
    queue.add(event(150));
    queue.putBack(batch);
    expect(names(queue.take(3))).toEqual(['e0', 'e1', 'e2']);
    expect(queue.size()).toBe(148);
  });

  test('take keeps a batch under the byte limit but always takes at least one event', () => {
    const queue = new EventQueue(createStore(new FakeStorage(), 'q:'));
    const big = (n: number): QueuedEvent => ({ name: `big${n}`, params: { text: 'é'.repeat(1500) }, occurred_at: new Date(n).toISOString() });
    for (let n = 0; n < 5; n++) queue.add(big(n));
    // Each event is over 3000 bytes in UTF-8 (é takes two): 10 KB fits three of them.
    expect(queue.take(100, 10_000)).toHaveLength(3);
    expect(queue.take(100, 10)).toHaveLength(1);
  });

  test('clear empties it; without storage it works in memory for the page view', () => {
    const blocked = new FakeStorage();
    blocked.failWrites = true;
    const queue = new EventQueue(createStore(blocked, 'q:'));
    queue.add(event(1));
    expect(queue.size()).toBe(1);
    queue.clear();
    expect(queue.size()).toBe(0);
    const none = new EventQueue(createStore(null, 'q:'));
    none.add(event(2));
    expect(names(none.take())).toEqual(['e2']);
  });

  test('a corrupt stored queue reads as empty instead of breaking the page', () => {
    const storage = new FakeStorage();
    storage.setItem('q:queue', '{not json');
    const queue = new EventQueue(createStore(storage, 'q:'));
    expect(queue.size()).toBe(0);
    queue.add(event(1));
    expect(queue.size()).toBe(1);
  });

  test('whatever is added and taken, it never holds more than the cap and keeps the newest, in order (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 1, max: 40 }).map((n) => ({ add: n })), fc.integer({ min: 1, max: 100 }).map((n) => ({ take: n }))), { maxLength: 60 }), fc.integer({ min: 1, max: 50 }), (ops, cap) => {
        const queue = new EventQueue(createStore(new FakeStorage(), 'q:'), cap);
        const model: number[] = [];
        let dropped = 0;
        let next = 0;
        for (const op of ops) {
          if ('add' in op) {
            for (let i = 0; i < op.add; i++) {
              queue.add(event(next));
              model.push(next++);
              if (model.length > cap) {
                model.shift();
                dropped++;
              }
            }
          } else {
            expect(names(queue.take(op.take))).toEqual(model.splice(0, op.take).map((n) => `e${n}`));
          }
          expect(queue.size()).toBeLessThanOrEqual(cap);
        }
        expect(queue.size()).toBe(model.length);
        expect(queue.dropped()).toBe(dropped);
      }),
      { numRuns: 200 },
    );
  });
});
