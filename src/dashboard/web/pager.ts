import { html, type Html } from './html';

/**
 * The links under a long list: "Next page" carries the API's next_cursor, "First page" goes back
 * to the start. Keyset pages have no page numbers; the browser's Back goes to the page before.
 * `params` (a list's search, filters and order) are kept on both links; empty ones are left out.
 */
export function pager(path: string, page: { next_cursor: string | null; first: boolean; shown: number }, params: Record<string, string> = {}): Html {
  const kept = Object.entries(params).filter(([, value]) => value !== '');
  const href = (cursor?: string) => {
    const query = new URLSearchParams(cursor === undefined ? kept : [...kept, ['cursor', cursor]]).toString();
    return query ? `${path}?${query}` : path;
  };
  const next = page.next_cursor ? html`<a href="${href(page.next_cursor)}" rel="next">Next page</a>` : '';
  const first = page.first ? '' : html`<a href="${href()}">First page</a>`;
  if (!next && !first) return html``;
  return html`<nav class="pager actions" aria-label="Pages of this list"><span class="muted small">${page.shown} shown</span>${first}${next}</nav>`;
}
