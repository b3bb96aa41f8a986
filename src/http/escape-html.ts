/** The one HTML escape every page of the service (smart-link pages, the web app) uses. */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/g;

/** Text for an HTML text node or a quoted attribute value: the only escape a page uses. */
export function escapeHtml(text: string): string {
  return text.replace(SPECIAL, (character) => ESCAPES[character]!);
}
