import type { Store } from './storage';
import { utf8Bytes } from './transport';

/** One event as the events endpoint takes it. */
export interface QueuedEvent {
  name: string;
  value?: number | null;
  currency?: string | null;
  params?: Record<string, unknown> | null;
  occurred_at: string;
}

/** The spec's limits: the queue holds 500 events; one call carries at most 100. */
export const QUEUE_CAP = 500;
export const BATCH_MAX_EVENTS = 100;
/** Keeps a batch, with its envelope, small enough to go with keepalive (transport.ts). */
export const BATCH_MAX_BYTES = 30 * 1024;

interface Persisted {
  events: QueuedEvent[];
  dropped: number;
}

/**
 * The event queue, persisted under `queue` so events logged before a reload, a crash or a
 * network cut are sent on a later page view. Past the cap the oldest events are dropped and
 * counted. Each operation reads and writes the stored copy, so tabs of one origin share it.
 */
export class EventQueue {
  constructor(
    private readonly store: Store,
    private readonly cap = QUEUE_CAP,
  ) {}

  add(event: QueuedEvent): void {
    const state = this.read();
    state.events.push(event);
    this.write(state);
  }

  /** Removes and answers the oldest events: at most `maxEvents` and `maxBytes` of JSON, never none when the queue has some. */
  take(maxEvents = BATCH_MAX_EVENTS, maxBytes = BATCH_MAX_BYTES): QueuedEvent[] {
    const state = this.read();
    let bytes = 0;
    let count = 0;
    for (const event of state.events) {
      bytes += utf8Bytes(JSON.stringify(event)) + 1;
      if (count === maxEvents || (count > 0 && bytes > maxBytes)) break;
      count++;
    }
    const batch = state.events.splice(0, count);
    if (batch.length > 0) this.write(state);
    return batch;
  }

  /** Puts a batch that could not be sent back in front, in its order. */
  putBack(batch: readonly QueuedEvent[]): void {
    const state = this.read();
    state.events.unshift(...batch);
    this.write(state);
  }

  clear(): void {
    this.store.remove('queue');
  }

  size(): number {
    return this.read().events.length;
  }

  /** Events dropped because the queue was full, since storage was last cleared. */
  dropped(): number {
    return this.read().dropped;
  }

  private read(): Persisted {
    const stored = this.store.get<Persisted>('queue');
    const events = Array.isArray(stored?.events) ? stored!.events : [];
    const dropped = typeof stored?.dropped === 'number' ? stored.dropped : 0;
    return { events, dropped };
  }

  private write(state: Persisted): void {
    const over = state.events.length - this.cap;
    if (over > 0) {
      state.events.splice(0, over);
      state.dropped += over;
    }
    this.store.set('queue', state);
  }
}
