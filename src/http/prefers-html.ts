/**
 * Whether a request is a browser's navigation, which should get a page rather than JSON: its
 * Accept header ranks text/html above application/json. A client that names JSON (the app's own
 * script, an SDK) or accepts anything (as curl does) keeps the JSON answer.
 */
export function prefersHtml(accept: string | null): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!(weight >= 0 && weight <= 1)) continue;
    if (type === 'text/html') html = Math.max(html, weight);
    else if (type === 'application/json') json = Math.max(json, weight);
  }
  return html > 0 && html > json;
}

/** Paths whose answers stay JSON whatever the Accept header says: the APIs, and /c and /i (spec: no HTML there). */
export function alwaysJsonPath(path: string): boolean {
  return /^\/(api|c|i)(\/|$)/.test(path) || path.startsWith('/.well-known/') || path === '/postback';
}
