import { unsupportedMediaType, validationError } from './errors';

/**
 * JSON bodies as every route reads them (docs/http-rules.md, "JSON bodies"): the nesting is
 * bounded on the raw text before anything is built, and the strings and field names of the
 * parsed value are ones the code and the database can hold.
 */

/** The deepest a body may nest objects and arrays; the outermost counts as 1. */
export const MAX_JSON_DEPTH = 32;

export const TOO_DEEP = `the body must not nest objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;
export const NOT_JSON = 'the body is not valid JSON';
export const LONE_SURROGATE = 'must not contain a lone UTF-16 surrogate (\\ud800 to \\udfff without its pair)';
export const PROTO_NAME = 'must not be named __proto__';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when `text` opens more than `limit` objects or arrays inside one another: one pass over
 * the characters, skipping strings, so its cost does not depend on how deep the text nests.
 * On text that is not JSON the answer means nothing (the parser refuses that text anyway).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

export interface JsonBodyOptions {
  /** A report stored as received keeps its text: a lone surrogate becomes U+FFFD instead of a 400. */
  loneSurrogates?: 'refuse' | 'replace';
}

/**
 * `text` parsed, or the 400 in the spec's validation shape: nested too deep, not JSON, a string
 * or a field name holding a lone surrogate (named by its dotted path), a field named __proto__.
 */
export function parseJsonBody(text: string, options: JsonBodyOptions = {}): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw validationError({}, [TOO_DEEP]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validationError({}, [NOT_JSON]);
  }
  // Text decoded from UTF-8 holds no lone surrogate: only a \u escape can spell one, or hide a name.
  if (!text.includes('\\u') && !text.includes('__proto__')) return value;
  return checkNames(value, options.loneSurrogates ?? 'refuse');
}

/**
 * Points the request's JSON reader at parseJsonBody, for Elysia's parser and every handler
 * alike, and refuses a multipart form (415): no route takes one, and Elysia's form reader would
 * parse the JSON text inside its fields with no bound. Keeps the request object, as capBody does.
 */
export function boundJsonReaders(request: Request): void {
  const text = request.text.bind(request);
  Object.defineProperty(request, 'json', { value: async () => parseJsonBody(await text()), configurable: true });
  Object.defineProperty(request, 'formData', { value: () => Promise.reject(unsupportedMediaType()), configurable: true });
}

type Container = Record<string, unknown>;

/** Walks `root` without recursion; with 'replace' the ill-formed strings and names are rewritten in place. */
function checkNames(root: unknown, loneSurrogates: 'refuse' | 'replace'): unknown {
  const replace = loneSurrogates === 'replace';
  const problems = new Map<string, string>();
  if (typeof root === 'string' && !root.isWellFormed()) {
    if (replace) return root.toWellFormed();
    problems.set('', LONE_SURROGATE);
  }
  const stack: { node: Container; path: string[] }[] = isContainer(root) ? [{ node: root, path: [] }] : [];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    for (let key of Object.keys(node)) {
      // Paths name a field by its well-formed spelling, so no answer carries a lone surrogate.
      const label = key.isWellFormed() ? key : key.toWellFormed();
      if (key === '__proto__') problems.set([...path, key].join('.'), PROTO_NAME);
      else if (label !== key) {
        if (!replace) problems.set([...path, label].join('.'), LONE_SURROGATE);
        else {
          // Two names that differ only by their lone surrogates: the one spelled well is kept.
          if (!Object.hasOwn(node, label)) node[label] = node[key];
          delete node[key];
          key = label;
        }
      }
      const value = node[key];
      if (typeof value === 'string' && !value.isWellFormed()) {
        if (replace) node[key] = value.toWellFormed();
        else problems.set([...path, label].join('.'), LONE_SURROGATE);
      } else if (isContainer(value)) stack.push({ node: value, path: [...path, label] });
    }
  }
  if (problems.size === 0) return root;
  const fieldErrors: Record<string, string[]> = Object.create(null);
  const formErrors: string[] = [];
  for (const [path, message] of problems) {
    if (path === '') formErrors.push(message);
    else fieldErrors[path] = [message];
  }
  throw validationError(fieldErrors, formErrors);
}

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;
