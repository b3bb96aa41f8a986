import { describe, expect, test } from 'bun:test';
import { decodeTime } from 'ulid';
import { newId } from '../../src/shared/ids';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('newId', () => {
  test('ULIDs of the current time, strictly increasing and unique, also many per millisecond', () => {
    const before = Date.now();
    const ids = Array.from({ length: 200_000 }, () => newId());
    const after = Date.now();
    for (let i = 0; i < ids.length; i++) {
      expect(ids[i]).toMatch(ULID);
      if (i > 0 && !(ids[i]! > ids[i - 1]!)) throw new Error(`not increasing at ${i}: ${ids[i - 1]} then ${ids[i]}`);
    }
    expect(new Set(ids).size).toBe(ids.length);
    const first = decodeTime(ids[0]!);
    const last = decodeTime(ids[ids.length - 1]!);
    expect(first).toBeGreaterThanOrEqual(before);
    expect(last).toBeLessThanOrEqual(after);
  });

  test('ids of one millisecond count up by one in their last 8 characters (Crockford base32)', () => {
    const value = (text: string) => [...text].reduce((n, c) => n * 32 + CROCKFORD.indexOf(c), 0);
    for (let tries = 0; tries < 100; tries++) {
      const a = newId();
      const b = newId();
      if (a.slice(0, 18) !== b.slice(0, 18)) continue; // a millisecond (or an upper half) changed in between
      expect(value(b.slice(18))).toBe(value(a.slice(18)) + 1);
      return;
    }
    throw new Error('never minted two ids in one millisecond');
  });

  test('the random part differs between milliseconds (ids are not guessable from the time)', async () => {
    const a = newId();
    await Bun.sleep(3);
    const b = newId();
    expect(decodeTime(b)).toBeGreaterThan(decodeTime(a));
    expect(b.slice(10)).not.toBe(a.slice(10));
    // 80 random bits: the upper halves of two milliseconds colliding would be a 1 in 2^40 event.
    expect(b.slice(10, 18)).not.toBe(a.slice(10, 18));
  });

  test('a clock that goes back never makes an id sort before the previous one', () => {
    const realNow = Date.now;
    try {
      const first = newId();
      Date.now = () => realNow() - 60_000;
      const second = newId();
      const third = newId();
      expect(second > first).toBe(true);
      expect(third > second).toBe(true);
    } finally {
      Date.now = realNow;
    }
  });
});
