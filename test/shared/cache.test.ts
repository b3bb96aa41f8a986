import { describe, expect, test } from 'bun:test';
import { Lru, setBounded } from '../../src/shared/cache';

/** A clock the test moves by hand, starting at 0 (the start time lru-cache treats as "no TTL"). */
function manualClock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('Lru', () => {
  test('keeps at most capacity entries and evicts the least recently used', () => {
    const evicted: string[] = [];
    const cache = new Lru<string, number>(2, { onEvict: (key) => evicted.push(key) });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(evicted).toEqual(['b']);
  });

  test('an entry written at clock 0 expires at exactly its time to live', () => {
    const clock = manualClock();
    const cache = new Lru<string, string>(10, { ttlMs: 1000, now: clock.now });
    cache.set('key', 'row');
    clock.advance(999);
    expect(cache.get('key')).toBe('row');
    clock.advance(1);
    expect(cache.get('key')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test('peek returns an expired entry marked stale, and get then drops it', () => {
    const clock = manualClock();
    const cache = new Lru<string, string>(10, { ttlMs: 50, now: clock.now });
    cache.set('key', 'row');
    expect(cache.peek('key')).toEqual({ value: 'row', stale: false });
    clock.advance(50);
    expect(cache.peek('key')).toEqual({ value: 'row', stale: true });
    expect(cache.get('key')).toBeUndefined();
    expect(cache.peek('key')).toBeUndefined();
  });

  test('without a time to live nothing expires', () => {
    const clock = manualClock();
    const cache = new Lru<string, number>(10, { now: clock.now });
    cache.set('key', 1);
    clock.advance(Number.MAX_SAFE_INTEGER);
    expect(cache.get('key')).toBe(1);
  });

  test('overwriting a key reports the replaced value once, and the same value not at all', () => {
    const evicted: Array<[string, number]> = [];
    const cache = new Lru<string, number>(10, { onEvict: (key, value) => evicted.push([key, value]) });
    cache.set('key', 1);
    cache.set('key', 1);
    cache.set('key', 2);
    expect(evicted).toEqual([['key', 1]]);
    expect(cache.get('key')).toBe(2);
  });

  test('deleteWhere drops every key holding a matching value, whatever its key', () => {
    const cache = new Lru<string, { keyId: string }>(10);
    cache.set('prefix-1', { keyId: 'revoked' });
    cache.set('prefix-2', { keyId: 'revoked' });
    cache.set('prefix-3', { keyId: 'live' });
    cache.deleteWhere((row) => row.keyId === 'revoked');
    expect(cache.size).toBe(1);
    expect(cache.get('prefix-3')).toEqual({ keyId: 'live' });
  });

  test('clear reports every entry to onEvict', () => {
    const evicted: string[] = [];
    const cache = new Lru<string, number>(10, { onEvict: (key) => evicted.push(key) });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(evicted.sort()).toEqual(['a', 'b']);
  });

  test('a capacity below 1 is refused', () => {
    expect(() => new Lru(0)).toThrow('capacity');
  });
});

describe('setBounded', () => {
  test('empties a full memo before adding, so it never holds more than limit entries', () => {
    const memo = new Map<number, number>();
    for (let key = 0; key < 3; key++) setBounded(memo, 3, key, key * 10);
    expect(memo.size).toBe(3);
    expect(setBounded(memo, 3, 99, 990)).toBe(990);
    expect([...memo]).toEqual([[99, 990]]);
  });
});
