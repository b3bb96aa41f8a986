/**
 * Where a smart link sends a visitor: the chosen target, given the visitor's query parameters
 * (`pass_params`) and the click id, exactly once. Strings are cut and joined, never re-serialised
 * through URL, so every byte of the target not being changed is kept as written, whatever the
 * scheme (http(s), `myapp://host/path`, `myapp:path`). docs/smart-link-serving.md, "Targets".
 */
import { encodeUnsafeChars, MAX_LANDING_URL_LENGTH, withClickId } from '../redirect/landing-url';
import { formDecode } from '../query-string';
import { CLICK_ID_PARAM, FORCE_TRANSPARENT_PARAM, LANDING_PARAMS } from '../tracking.model';

/** What `pass_params` never forwards: the click id and the `/c` landing URL controls. */
export const PASS_THROUGH_EXCLUDED: ReadonlySet<string> = new Set([CLICK_ID_PARAM, ...LANDING_PARAMS, FORCE_TRANSPARENT_PARAM]);

/** Room left for the click id once visitor parameters are in, under the Location length limit. */
const CLICK_ID_ROOM = 128;

const PLAY_STORE = /^https?:\/\/(?:[^/?#@]*@)?play\.google\.com(?::\d*)?(?:[/?#]|$)/i;
const PLAY_REFERRER = 'referrer';

/** A Google Play page (any path): its click id travels in the install referrer. */
export function isPlayStoreUrl(target: string): boolean {
  return PLAY_STORE.test(target);
}

/**
 * The target with `svc_click_id=<id>` exactly once. A Play Store target carries it inside its
 * `referrer` instead (decoded: `...&svc_click_id=<id>`), and nowhere else; any other target,
 * web or deep link, gets it as the last query parameter, before any `#fragment`.
 */
export function withSmartClickId(target: string, clickId: string): string {
  return isPlayStoreUrl(target) ? withPlayReferrer(target, clickId) : withClickId(target, clickId);
}

/**
 * The visitor's query parameters appended to the target, in the order sent, raw. Skipped: names in
 * `exclude`, the click id, and names the target already has (the target wins: its author fixed
 * them). Parameters that would push the target past the Location limit are left out.
 */
export function passThroughParams(target: string, query: string, exclude: ReadonlySet<string>): string {
  const hashAt = query.indexOf('#');
  const visitorQuery = hashAt < 0 ? query : query.slice(0, hashAt);
  if (visitorQuery === '') return target;
  const parts = splitUrl(target);
  const own = new Set(pieces(parts.query).map(pieceName));
  const added: string[] = [];
  let length = target.length;
  for (const piece of pieces(visitorQuery)) {
    const name = pieceName(piece);
    if (name === CLICK_ID_PARAM || exclude.has(name) || own.has(name)) continue;
    const safe = encodeUnsafeChars(piece);
    if (length + safe.length + 1 > MAX_LANDING_URL_LENGTH - CLICK_ID_ROOM) continue;
    added.push(safe);
    length += safe.length + 1;
  }
  if (added.length === 0) return target;
  const joined = parts.query === '' ? added.join('&') : `${parts.query}&${added.join('&')}`;
  return `${parts.base}?${joined}${parts.fragment}`;
}

/**
 * The click id merged into the Play referrer: the first `referrer` keeps its place and its raw
 * pieces (split on the encoded `&`), minus any svc_click_id, plus the new one; later `referrer`s
 * and top-level svc_click_id pieces are dropped. The rest of the query is kept in order.
 */
function withPlayReferrer(target: string, clickId: string): string {
  const parts = splitUrl(target);
  const kept: string[] = [];
  let referrerAt = -1;
  let referrer = '';
  for (const piece of pieces(parts.query)) {
    const name = pieceName(piece);
    if (name === CLICK_ID_PARAM) continue;
    if (name === PLAY_REFERRER) {
      if (referrerAt >= 0) continue;
      const eq = piece.indexOf('=');
      referrer = eq < 0 ? '' : piece.slice(eq + 1);
      referrerAt = kept.length;
    }
    kept.push(piece);
  }
  const inner = referrer.split(ENCODED_AMPERSAND).filter((raw) => raw !== '' && referrerPieceName(raw) !== CLICK_ID_PARAM);
  // The inner value is encoded for the referrer, then the whole pair once more for the query.
  inner.push(`${CLICK_ID_PARAM}%3D${encodeURIComponent(encodeURIComponent(clickId))}`);
  const merged = `${PLAY_REFERRER}=${inner.join('%26')}`;
  if (referrerAt < 0) kept.push(merged);
  else kept[referrerAt] = merged;
  return `${parts.base}?${kept.join('&')}${parts.fragment}`;
}

const ENCODED_AMPERSAND = /%26/i;
const ENCODED_EQUALS = /=|%3D/i;

/** A raw referrer piece's name: before its first `=` or `%3D`, decoded as Play will. */
function referrerPieceName(raw: string): string {
  const match = ENCODED_EQUALS.exec(raw);
  const name = match ? raw.slice(0, match.index) : raw;
  return formDecode(formDecode(name));
}

interface UrlParts {
  /** Up to '?' (or the fragment). */
  base: string;
  /** Between '?' and '#', without either. */
  query: string;
  /** From '#' on, or ''. */
  fragment: string;
}

function splitUrl(url: string): UrlParts {
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt < 0 ? url : url.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : url.slice(hashAt);
  const queryAt = beforeHash.indexOf('?');
  if (queryAt < 0) return { base: beforeHash, query: '', fragment };
  return { base: beforeHash.slice(0, queryAt), query: beforeHash.slice(queryAt + 1), fragment };
}

/** The non-empty `&`-separated pieces of a raw query. */
function pieces(query: string): string[] {
  return query === '' ? [] : query.split('&').filter((piece) => piece !== '');
}

function pieceName(piece: string): string {
  const eq = piece.indexOf('=');
  return formDecode(eq < 0 ? piece : piece.slice(0, eq));
}
