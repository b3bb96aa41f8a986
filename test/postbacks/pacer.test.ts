import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createHostPacer, type HostPacer } from '../../src/postbacks/host-pacer';

let ids = 0;
/** A new delivery asking at `now`. */
const fresh = (pacer: HostPacer, host: string, now: number) => pacer.admit(host, `d${(ids += 1)}`, now);

describe('host pacer', () => {
  test('a host gets its burst at once, then one send per interval; waiting deliveries get slots one interval apart', () => {
    const pacer = createHostPacer({ ratePerSecond: 10, burst: 3 });
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => pacer.admit('ads.example', id, 0))).toEqual([0, 0, 0, 100, 200, 300]);
    // Each comes back at its slot and finds its token.
    expect([pacer.admit('ads.example', 'd', 100), pacer.admit('ads.example', 'e', 200), pacer.admit('ads.example', 'f', 300)]).toEqual([0, 0, 0]);
    // Newcomers queue after the slots already given out.
    expect([pacer.admit('ads.example', 'g', 300), pacer.admit('ads.example', 'h', 300), pacer.admit('ads.example', 'i', 300)]).toEqual([100, 200, 300]);
    expect(pacer.admit('ads.example', 'g', 400)).toBe(0);
    // A newcomer takes the token meant for h, which comes back late: h waits for the next token
    // (i's slot, one of them then gets the one after), not behind the newest slot.
    expect(pacer.admit('ads.example', 'j', 500)).toBe(0);
    expect(pacer.admit('ads.example', 'h', 505)).toBe(95);
    expect(pacer.admit('ads.example', 'k', 505)).toBe(195);
  });

  test('hosts have buckets of their own', () => {
    const pacer = createHostPacer({ ratePerSecond: 1, burst: 1 });
    expect(fresh(pacer, 'a.example', 0)).toBe(0);
    expect(fresh(pacer, 'a.example', 0)).toBe(1000);
    expect(fresh(pacer, 'b.example', 0)).toBe(0);
  });

  test('deliveries sent when admitted or at their slots never exceed burst + rate x window (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 200 }),
        (rate, burst, arrivals) => {
          const pacer = createHostPacer({ ratePerSecond: rate, burst });
          // Events in time order: first asks, and returns at the slot the pacer gave.
          const queue = arrivals.map((at, n) => ({ at, id: `p${n}` }));
          const sent: number[] = [];
          while (queue.length > 0) {
            queue.sort((a, b) => a.at - b.at);
            const next = queue.shift()!;
            const wait = pacer.admit('h', next.id, next.at);
            if (wait === 0) sent.push(next.at);
            else queue.push({ at: next.at + wait, id: next.id });
          }
          expect(sent).toHaveLength(arrivals.length);
          for (let i = 0; i < sent.length; i += 1) {
            for (let j = i; j < sent.length; j += 1) expect(j - i + 1).toBeLessThanOrEqual(burst + ((sent[j]! - sent[i]!) * rate) / 1000 + 1e-6);
          }
        },
      ),
    );
  });

  test('a backlog waits at the rate, and every delivery coming back at its slot goes within a millisecond of it (property)', () => {
    fc.assert(
      // From a burst of 2: a bucket of one token loses the fraction a late return accrues over it.
      fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 2, max: 20 }), fc.integer({ min: 1, max: 200 }), (rate, burst, backlog) => {
        const pacer = createHostPacer({ ratePerSecond: rate, burst });
        const waits = Array.from({ length: backlog }, (_, n) => pacer.admit('h', `b${n}`, 0));
        expect(waits.filter((wait) => wait === 0)).toHaveLength(Math.min(backlog, burst));
        // Each slot is one interval after the last, rounded up to the millisecond (floating point aside).
        waits.slice(burst).forEach((wait, k) => expect(wait - ((k + 1) * 1000) / rate).toBeWithin(-1e-6, 1 + 1e-6));
        waits.forEach((wait, n) => {
          if (wait === 0) return;
          let at = wait;
          for (let again = pacer.admit('h', `b${n}`, at); again > 0; again = pacer.admit('h', `b${n}`, at)) at += again;
          expect(at - wait).toBeLessThanOrEqual(1);
        });
      }),
    );
  });

  test('idle hosts and slots nobody came back for are forgotten', () => {
    const pacer = createHostPacer({ ratePerSecond: 10, burst: 1 });
    for (let n = 0; n < 100; n += 1) fresh(pacer, `host-${n}.example`, 0);
    pacer.admit('busy.example', 'sent', 0);
    pacer.admit('busy.example', 'taken-elsewhere', 0);
    expect(pacer.tracked()).toEqual({ hosts: 101, waiting: 1 });
    // A minute on the idle buckets are full again; the missed slot lapses after five.
    fresh(pacer, 'late.example', 60_000);
    expect(pacer.tracked()).toEqual({ hosts: 1, waiting: 1 });
    fresh(pacer, 'later.example', 6 * 60_000);
    expect(pacer.tracked()).toEqual({ hosts: 1, waiting: 0 });
  });
});
