/**
 * The subscription state machine (docs/subscriptions.md, "State machine"): pure, store-neutral.
 * Each receiver turns its store's notification into a `StoreChange`; `transition` says the next
 * state and the event to record on the install. No I/O, so it is property-tested on its own.
 */

export const SUBSCRIPTION_STATES = ['trial', 'active', 'grace_period', 'billing_retry', 'cancelled', 'expired', 'refunded', 'revoked', 'paused'] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

/** What a notification says happened, whichever store sent it. */
export const CHANGE_KINDS = [
  'purchased',
  'resubscribed',
  'renewed',
  'recovered',
  'auto_renew_off',
  'auto_renew_on',
  'grace_period',
  'billing_retry',
  'expired',
  'refunded',
  'refund_reversed',
  'revoked',
  'paused',
  'extended',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface Snapshot {
  state: SubscriptionState;
  isTrial: boolean;
  /** The signed time of the newest notification applied; null before the first one. */
  lastSignedAt: Date | null;
  expiresAt: Date | null;
}

export interface StoreChange {
  kind: ChangeKind;
  signedAt: Date;
  /** Whether the period this change starts is a free trial (purchases and renewals). */
  isTrial?: boolean;
  expiresAt?: Date | null;
  /** Money moved by this change, in currency units, positive; null when unknown or not counted. */
  amount: number | null;
  /** The subscription row was made for this notification (no SDK call or notification knew it). */
  created: boolean;
  /** The store's own reading of the state (Google Play's API), which wins where it can speak. */
  storeState?: SubscriptionState | null;
}

export interface SubscriptionEvent {
  name: string;
  value: number | null;
}

export interface Transition {
  next: Snapshot;
  event: SubscriptionEvent | null;
  /** false: the notification is older than one already applied, so the state did not move. */
  applied: boolean;
}

/** Kinds that record money: they are counted even when they arrive too late to move the state. */
const MONEY_KINDS: ReadonlySet<ChangeKind> = new Set(['purchased', 'resubscribed', 'renewed', 'recovered', 'refunded', 'refund_reversed']);
/** Facts the Play API reports only as `expired`: the notification's reading wins over the API's. */
const NOTIFICATION_ONLY_STATES: ReadonlySet<SubscriptionState> = new Set(['refunded', 'revoked']);
/** States in which the subscriber is still entitled, so turning auto-renew off leaves them `cancelled`. */
const ENTITLED_RENEWING: ReadonlySet<SubscriptionState> = new Set(['trial', 'active', 'grace_period']);

const startedState = (isTrial: boolean): SubscriptionState => (isTrial ? 'trial' : 'active');

function targetState(current: Snapshot, change: StoreChange): SubscriptionState {
  switch (change.kind) {
    case 'purchased':
    case 'resubscribed':
      return startedState(change.isTrial ?? false);
    case 'renewed':
    case 'recovered':
      return 'active';
    case 'auto_renew_off':
      return ENTITLED_RENEWING.has(current.state) ? 'cancelled' : current.state;
    case 'auto_renew_on':
      return current.state === 'cancelled' ? startedState(current.isTrial) : current.state;
    case 'refund_reversed':
      return current.state === 'refunded' ? startedState(current.isTrial) : current.state;
    case 'extended':
      return current.state;
    case 'grace_period':
    case 'billing_retry':
    case 'expired':
    case 'refunded':
    case 'revoked':
    case 'paused':
      return change.kind;
  }
}

/** The event a change records; `from` is the state before it (a trial's first renewal converts). */
function eventOf(change: StoreChange, from: SubscriptionState | null): SubscriptionEvent | null {
  const amount = change.amount;
  switch (change.kind) {
    case 'purchased':
      if (!change.created) return null; // the SDK call (or an earlier notification) recorded the start
      return change.isTrial ? { name: 'trial_start', value: null } : { name: 'subscribe', value: amount };
    case 'resubscribed':
      return change.isTrial ? { name: 'trial_start', value: null } : { name: 'subscribe', value: amount };
    case 'renewed':
      return { name: from === 'trial' ? 'subscription_converted' : 'subscription_renewed', value: amount };
    case 'recovered':
      return { name: 'subscription_recovered', value: amount };
    case 'refunded':
      return { name: 'subscription_refunded', value: amount === null ? null : -amount };
    case 'refund_reversed':
      return { name: 'subscription_refund_reversed', value: amount };
    case 'auto_renew_off':
      return { name: 'subscription_cancelled', value: null };
    case 'auto_renew_on':
      return { name: 'subscription_reactivated', value: null };
    case 'grace_period':
      return { name: 'subscription_grace_period', value: null };
    case 'billing_retry':
      return { name: 'subscription_billing_retry', value: null };
    case 'expired':
      return { name: 'subscription_expired', value: null };
    case 'revoked':
      return { name: 'subscription_revoked', value: null };
    case 'paused':
      return { name: 'subscription_paused', value: null };
    case 'extended':
      return null;
  }
}

/** Whether the current period is a free trial: a cancelled trial that is switched back on is a trial again. */
function nextIsTrial(current: Snapshot, change: StoreChange, state: SubscriptionState): boolean {
  if (state === 'trial') return true;
  if (change.storeState === 'active') return false;
  if (change.kind === 'purchased' || change.kind === 'resubscribed') return change.isTrial ?? false;
  if (change.kind === 'renewed' || change.kind === 'recovered') return false;
  return current.isTrial;
}

/**
 * The next snapshot and event for one notification. A notification signed before the newest one
 * applied never moves the state (stores deliver out of order); money it reports is still recorded.
 */
export function transition(current: Snapshot, change: StoreChange): Transition {
  if (current.lastSignedAt !== null && change.signedAt.getTime() < current.lastSignedAt.getTime()) {
    const late = MONEY_KINDS.has(change.kind) ? eventOf(change, null) : null;
    return { next: current, event: late, applied: false };
  }
  const machine = targetState(current, change);
  const state = change.storeState && !NOTIFICATION_ONLY_STATES.has(machine) ? change.storeState : machine;
  const next: Snapshot = {
    state,
    isTrial: nextIsTrial(current, change, state),
    lastSignedAt: change.signedAt,
    expiresAt: change.expiresAt ?? current.expiresAt,
  };
  return { next, event: eventOf(change, current.state), applied: true };
}
