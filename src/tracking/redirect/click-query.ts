import { formDecode, nameAt, queryOf } from '../query-string';
import { FORCE_TRANSPARENT_PARAM, LANDING_PARAMS } from '../tracking.model';

/**
 * A click's query string, read twice: the redirect reads only what its answer depends on and
 * journals the rest as it came; the batcher captures the other parameters (ValueTrack and extras)
 * right before the click is written (pipeline/click-capture.ts), so parsing them stays out of
 * the redirect.
 */

/** What the redirect reads of its query string. */
export interface ClickControls {
  /** The query string as sent: what follows '?', up to a '#' ('' when there is none). */
  query: string;
  /** The landing URL parameter given (the first of LANDING_PARAMS whose value is not empty), or undefined. */
  landingParam: (typeof LANDING_PARAMS)[number] | undefined;
  /** Its value exactly as sent (not decoded). */
  landingRaw: string;
  /** force_transparent's raw value, when the parameter is present. */
  force: string | undefined;
}

/** Where each control parameter stands in LANDING_PARAMS (its preference), and force_transparent after them. */
const FORCE_INDEX: number = LANDING_PARAMS.length;
const CONTROL_INDEX = new Map<string, number>([...LANDING_PARAMS.map((name, index) => [name, index] as const), [FORCE_TRANSPARENT_PARAM, FORCE_INDEX]]);
/** The longest a control parameter's name can be as sent: every character percent-encoded. */
const MAX_CONTROL_NAME = Math.max(...[...CONTROL_INDEX.keys()].map((name) => name.length)) * 3;

const CONTROL_NAMES = [...CONTROL_INDEX.keys()];
const PERCENT = 37;
const PLUS = 43;

/**
 * The control parameter that query[at, end) names, if any. A name with neither `%` nor `+` is
 * what it spells, so it is matched where it is, without being cut out: most of a click's
 * parameters (gclid, utm_*) are no control, and telling them so allocates nothing.
 */
function controlIndexAt(query: string, at: number, end: number): number | undefined {
  if (end - at > MAX_CONTROL_NAME) return undefined;
  for (let i = at; i < end; i++) {
    const code = query.charCodeAt(i);
    if (code === PERCENT || code === PLUS) return CONTROL_INDEX.get(formDecode(query.slice(at, end)));
  }
  const named = nameAt(CONTROL_NAMES, query, at, end);
  return named < 0 ? undefined : CONTROL_INDEX.get(CONTROL_NAMES[named]!);
}

/**
 * The control parameters of a request URL, read as parseQuery would (names form-decoded, the
 * first occurrence of a name wins) without building a map of every parameter: this runs on
 * every click redirect.
 */
export function clickControls(requestUrl: string): ClickControls {
  const query = queryOf(requestUrl);
  let seen = 0;
  let landing = FORCE_INDEX;
  let landingRaw = '';
  let force: string | undefined;
  for (let at = 0; at <= query.length; ) {
    let next = query.indexOf('&', at);
    if (next < 0) next = query.length;
    let eq = query.indexOf('=', at);
    if (eq < 0 || eq > next) eq = next;
    const index = controlIndexAt(query, at, eq);
    if (index !== undefined && (seen & (1 << index)) === 0) {
      seen |= 1 << index;
      const value = eq < next ? query.slice(eq + 1, next) : '';
      if (index === FORCE_INDEX) force = value;
      else if (value !== '' && index < landing) {
        landing = index;
        landingRaw = value;
      }
    }
    at = next + 1;
  }
  return { query, landingParam: landing < FORCE_INDEX ? LANDING_PARAMS[landing] : undefined, landingRaw, force };
}
