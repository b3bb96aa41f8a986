import type { QueuedEvent } from './queue';
import { utf8Bytes } from './transport';

/** What logEvent takes besides the name. */
export interface EventOptions {
  value?: number | null;
  /** ISO 4217, three letters. */
  currency?: string | null;
  /** Free-form keys: at most 50 keys of at most 128 characters, 4 KiB as JSON. */
  params?: Record<string, unknown> | null;
}

/** The server's rules for one event (docs/sdk.md): a breach there would refuse the whole batch. */
const MAX_NAME = 64;
const MAX_PARAMS_KEYS = 50;
const MAX_PARAM_KEY = 128;
const MAX_PARAMS_BYTES = 4096;

/**
 * The event as queued, or a TypeError naming what the server would refuse: checked here so one
 * bad event fails its own call instead of the batch it would travel in.
 */
export function queuedEvent(name: unknown, options: EventOptions | undefined, now: number): QueuedEvent {
  if (typeof name !== 'string' || name.length < 1 || name.length > MAX_NAME) throw new TypeError(`svc: event name must be 1 to ${MAX_NAME} characters`);
  const event: QueuedEvent = { name, occurred_at: new Date(now).toISOString() };
  const { value, currency, params } = options ?? {};
  if (value !== undefined && value !== null) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError('svc: value must be a finite number or null');
    event.value = value;
  }
  if (currency !== undefined && currency !== null) {
    if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) throw new TypeError('svc: currency must be 3 letters or null');
    event.currency = currency.toUpperCase();
  }
  if (params !== undefined && params !== null) event.params = checkedParams(params);
  return event;
}

function checkedParams(params: unknown): Record<string, unknown> {
  if (typeof params !== 'object' || Array.isArray(params)) throw new TypeError('svc: params must be an object or null');
  const keys = Object.keys(params as object);
  if (keys.length > MAX_PARAMS_KEYS || keys.some((key) => key.length > MAX_PARAM_KEY)) {
    throw new TypeError(`svc: params may have at most ${MAX_PARAMS_KEYS} keys of at most ${MAX_PARAM_KEY} characters`);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(params);
  } catch {}
  if (json === undefined || utf8Bytes(json) > MAX_PARAMS_BYTES) throw new TypeError(`svc: params must be JSON of at most ${MAX_PARAMS_BYTES} bytes`);
  // The queued copy is the JSON form: later changes to the caller's object do not leak in.
  return JSON.parse(json) as Record<string, unknown>;
}
