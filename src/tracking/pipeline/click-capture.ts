/**
 * The batcher's capture of a journaled click, right before it is enriched and written: the
 * redirect journals its query string as sent (redirect/click-query.ts reads only its controls),
 * and the ValueTrack parameters and extras are read here, off the redirect's path.
 */
import type { ClickRecord } from '../click.model';
import { decodedText, parseQuery } from '../query-string';
import {
  ALLOWED_VALUES,
  CAPTURE_LIMITS,
  CAPTURED_PARAMS,
  CLICK_ID_PARAM,
  completeClick,
  FORCE_TRANSPARENT_PARAM,
  LANDING_PARAMS,
  storable,
  type JournalEntry,
} from '../tracking.model';

/**
 * A journaled click as it is stored: completed with the defaults, and with what its query
 * string carries (a journal line without one already holds its captured fields, so a journal an
 * earlier version left replays unchanged).
 */
export function capturedClick(entry: Extract<JournalEntry, { k: 'c' }>): ClickRecord {
  const click = completeClick(entry.r);
  if (click.user_agent !== null) click.user_agent = storable(click.user_agent);
  if (click.referer !== null) click.referer = storable(click.referer);
  if (entry.q) captureQuery(click, entry.q);
  return click;
}

/** The spec's ValueTrack parameters into their columns, and up to CAPTURE_LIMITS.extraParams others into `params`. */
function captureQuery(click: ClickRecord, query: string): void {
  let extras: Record<string, string> | undefined;
  let extraCount = 0;
  parseQuery(query).forEach((raw, name) => {
    if (Object.hasOwn(CAPTURED_PARAMS, name)) {
      const param = name as keyof typeof CAPTURED_PARAMS;
      const value = capturedValue(param, decodedText(raw));
      if (value !== null) click[CAPTURED_PARAMS[param]] = value;
    } else if (raw !== '' && extraCount < CAPTURE_LIMITS.extraParams && name.length <= CAPTURE_LIMITS.extraNameLength && !isControlParam(name)) {
      (extras ??= {})[storable(name)] = decodedText(raw).slice(0, CAPTURE_LIMITS.valueLength);
      extraCount++;
    }
  });
  if (extras) click.params = extras;
}

function capturedValue(param: keyof typeof CAPTURED_PARAMS, value: string): string | null {
  if (value === '') return null;
  const allowed = ALLOWED_VALUES[param];
  if (allowed) return allowed.has(value) ? value : null;
  if (param === 'gclid') return value.length <= CAPTURE_LIMITS.gclidLength ? value : null;
  return value.slice(0, CAPTURE_LIMITS.valueLength);
}

/** Parameters the redirect reads or writes itself: never extras. */
const CONTROL_PARAMS: ReadonlySet<string> = new Set([CLICK_ID_PARAM, ...LANDING_PARAMS, FORCE_TRANSPARENT_PARAM]);

function isControlParam(name: string): boolean {
  return CONTROL_PARAMS.has(name);
}
