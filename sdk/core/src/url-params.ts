/**
 * Query parameters of a URL without the URL class: React Native's URL (before 0.72 at least)
 * has no working `searchParams`, so both SDKs read parameters through this one parser. Values
 * decode as URLSearchParams decodes them (`+` is a space, then percent-decoding); a malformed
 * percent sequence is kept as written.
 */

/** True for an absolute URL: a scheme, then anything (`https://…`, `myapp://…`, `myapp:/x`). */
export function isAbsoluteUrl(href: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(href.trim());
}

/** Percent-decodes `text` once; runs of escapes that are not valid UTF-8 stay as they are. */
export function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

function paramIn(query: string, name: string): string | null {
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = percentDecode((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    if (key === name) return percentDecode((eq < 0 ? '' : pair.slice(eq + 1)).replace(/\+/g, ' '));
  }
  return null;
}

/**
 * A parameter of the URL's query, or of a query inside its fragment (`#/route?svc_click_id=`);
 * null when `href` is not an absolute URL or has no such parameter.
 */
export function urlParam(href: string, name: string): string | null {
  const text = href.trim();
  if (!isAbsoluteUrl(text)) return null;
  const hashAt = text.indexOf('#');
  const beforeHash = hashAt < 0 ? text : text.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  if (queryAt >= 0) {
    const found = paramIn(beforeHash.slice(queryAt + 1), name);
    if (found !== null) return found;
  }
  if (hashAt < 0) return null;
  const fragment = text.slice(hashAt + 1);
  const fragmentQuery = fragment.indexOf('?');
  return fragmentQuery < 0 ? null : paramIn(fragment.slice(fragmentQuery + 1), name);
}
