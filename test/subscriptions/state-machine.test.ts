import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { CHANGE_KINDS, SUBSCRIPTION_STATES, transition, type ChangeKind, type Snapshot, type StoreChange, type SubscriptionState } from '../../src/subscriptions/state-machine';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
const snapshot = (state: SubscriptionState, extra: Partial<Snapshot> = {}): Snapshot => ({ state, isTrial: false, lastSignedAt: at(0), expiresAt: null, ...extra });
const change = (kind: ChangeKind, extra: Partial<StoreChange> = {}): StoreChange => ({ kind, signedAt: at(1000), amount: 9.99, created: false, ...extra });

describe('transition: the documented table', () => {
  test('every kind from active: next state and event (name, value)', () => {
    const rows = CHANGE_KINDS.map((kind) => {
      const step = transition(snapshot('active'), change(kind));
      return [kind, step.next.state, step.event?.name ?? null, step.event?.value ?? null];
    });
    expect(rows).toEqual([
      ['purchased', 'active', null, null],
      ['resubscribed', 'active', 'subscribe', 9.99],
      ['renewed', 'active', 'subscription_renewed', 9.99],
      ['recovered', 'active', 'subscription_recovered', 9.99],
      ['auto_renew_off', 'cancelled', 'subscription_cancelled', null],
      ['auto_renew_on', 'active', 'subscription_reactivated', null],
      ['grace_period', 'grace_period', 'subscription_grace_period', null],
      ['billing_retry', 'billing_retry', 'subscription_billing_retry', null],
      ['expired', 'expired', 'subscription_expired', null],
      ['refunded', 'refunded', 'subscription_refunded', -9.99],
      ['refund_reversed', 'active', 'subscription_refund_reversed', 9.99],
      ['revoked', 'revoked', 'subscription_revoked', null],
      ['paused', 'paused', 'subscription_paused', null],
      ['extended', 'active', null, null],
    ]);
  });

  test('a purchase records its start only when the notification made the subscription', () => {
    expect(transition(snapshot('active', { lastSignedAt: null }), change('purchased', { created: true })).event).toEqual({ name: 'subscribe', value: 9.99 });
    const trial = transition(snapshot('active', { lastSignedAt: null }), change('purchased', { created: true, isTrial: true, amount: 0 }));
    expect(trial.next).toMatchObject({ state: 'trial', isTrial: true });
    expect(trial.event).toEqual({ name: 'trial_start', value: null });
  });

  test("a trial's first renewal converts; a cancelled trial switched back on is a trial again", () => {
    expect(transition(snapshot('trial', { isTrial: true }), change('renewed')).event?.name).toBe('subscription_converted');
    expect(transition(snapshot('trial', { isTrial: true }), change('renewed')).next).toMatchObject({ state: 'active', isTrial: false });
    const cancelled = transition(snapshot('trial', { isTrial: true }), change('auto_renew_off')).next;
    expect(cancelled).toMatchObject({ state: 'cancelled', isTrial: true });
    expect(transition(cancelled, change('auto_renew_on', { signedAt: at(2000) })).next.state).toBe('trial');
  });

  test('auto-renew off keeps a lapsed subscription lapsed; on only revives a cancelled one', () => {
    for (const state of ['billing_retry', 'expired', 'refunded', 'revoked', 'paused'] as const) {
      expect(transition(snapshot(state), change('auto_renew_off')).next.state).toBe(state);
    }
    for (const state of ['grace_period', 'billing_retry', 'expired'] as const) {
      expect(transition(snapshot(state), change('auto_renew_on')).next.state).toBe(state);
    }
    expect(transition(snapshot('grace_period'), change('auto_renew_off')).next.state).toBe('cancelled');
  });

  test("the store's own state wins, except over a refund or a revocation", () => {
    expect(transition(snapshot('active'), change('renewed', { storeState: 'grace_period' })).next.state).toBe('grace_period');
    expect(transition(snapshot('active'), change('auto_renew_off', { storeState: 'expired' })).next.state).toBe('expired');
    expect(transition(snapshot('active'), change('refunded', { storeState: 'expired' })).next.state).toBe('refunded');
    expect(transition(snapshot('active'), change('revoked', { storeState: 'expired' })).next.state).toBe('revoked');
  });

  test('a late notification keeps the state; only money it reports is recorded', () => {
    const newer = snapshot('expired', { lastSignedAt: at(5000) });
    const renewal = transition(newer, change('renewed'));
    expect(renewal).toEqual({ next: newer, event: { name: 'subscription_renewed', value: 9.99 }, applied: false });
    expect(transition(newer, change('refunded')).event).toEqual({ name: 'subscription_refunded', value: -9.99 });
    expect(transition(newer, change('auto_renew_off'))).toEqual({ next: newer, event: null, applied: false });
  });

  test('expiry follows the newest notification that gives one', () => {
    const expiresAt = at(86_400_000);
    expect(transition(snapshot('active'), change('renewed', { expiresAt })).next.expiresAt).toEqual(expiresAt);
    expect(transition(snapshot('active', { expiresAt }), change('auto_renew_off')).next.expiresAt).toEqual(expiresAt);
  });
});

const state = fc.constantFrom(...SUBSCRIPTION_STATES);
const kind = fc.constantFrom(...CHANGE_KINDS);
const arbitrarySnapshot = fc.record({
  state,
  isTrial: fc.boolean(),
  lastSignedAt: fc.option(fc.integer({ min: 0, max: 1e9 }).map(at), { nil: null }),
  expiresAt: fc.option(fc.integer({ min: 0, max: 2e9 }).map(at), { nil: null }),
});
const arbitraryChange = fc.record({
  kind,
  signedAt: fc.integer({ min: 0, max: 1e9 }).map(at),
  isTrial: fc.option(fc.boolean(), { nil: undefined }),
  expiresAt: fc.option(fc.integer({ min: 0, max: 2e9 }).map(at), { nil: undefined }),
  amount: fc.option(fc.double({ min: 0, max: 1000, noNaN: true }), { nil: null }),
  created: fc.boolean(),
  storeState: fc.option(state, { nil: null }),
});

describe('transition: properties', () => {
  test('never backwards: a notification signed before the last applied one leaves the snapshot as it was', () => {
    fc.assert(
      fc.property(arbitrarySnapshot, arbitraryChange, (current, c) => {
        const step = transition(current, c);
        if (current.lastSignedAt !== null && c.signedAt < current.lastSignedAt) {
          expect(step.applied).toBe(false);
          expect(step.next).toEqual(current);
        } else {
          expect(step.applied).toBe(true);
          expect(step.next.lastSignedAt).toEqual(c.signedAt);
        }
      }),
    );
  });

  test('idempotent: the same notification applied twice ends where applying it once did', () => {
    fc.assert(
      fc.property(arbitrarySnapshot, arbitraryChange, (current, c) => {
        const once = transition(current, c).next;
        expect(transition(once, c).next).toEqual(once);
      }),
    );
  });

  test('any delivery order: the last signed time only grows and ends at the newest applied', () => {
    fc.assert(
      fc.property(arbitrarySnapshot, fc.array(arbitraryChange, { minLength: 1, maxLength: 12 }), (start, changes) => {
        let current: Snapshot = { ...start, lastSignedAt: null };
        let newest = -Infinity;
        for (const c of changes) {
          const before = current.lastSignedAt?.getTime() ?? -Infinity;
          current = transition(current, c).next;
          expect(current.lastSignedAt!.getTime()).toBeGreaterThanOrEqual(before);
          newest = Math.max(newest, c.signedAt.getTime());
        }
        expect(current.lastSignedAt!.getTime()).toBe(newest);
      }),
    );
  });

  test('money has one sign: refunds subtract, payments add, other events carry no value', () => {
    fc.assert(
      fc.property(arbitrarySnapshot, arbitraryChange, (current, c) => {
        const event = transition(current, c).event;
        if (!event || event.value === null) return;
        if (c.kind === 'refunded') expect(event.value).toBeLessThanOrEqual(0);
        else {
          expect(['purchased', 'resubscribed', 'renewed', 'recovered', 'refund_reversed']).toContain(c.kind);
          expect(event.value).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});
