import { html, type Html } from './html';

/**
 * The links under a long list: "Next page" carries the API's next_cursor, "First page" goes back
 * to the start. Keyset pages have no page numbers; the browser's Back goes to the page before.
 */
export function pager(path: string, page: { next_cursor: string | null; first: boolean; shown: number }): Html {
  const next = page.next_cursor ? html`<a href="${path}?cursor=${encodeURIComponent(page.next_cursor)}" rel="next">Next page</a>` : '';
  const first = page.first ? '' : html`<a href="${path}">First page</a>`;
  if (!next && !first) return html``;
  return html`<nav class="pager actions" aria-label="Pages of this list"><span class="muted small">${page.shown} shown</span>${first}${next}</nav>`;
}
