import { SECURITY_HEADERS } from '../../http/http.plugin';
import { escapeHtml } from '../../http/escape-html';

/**
 * HTML of the web app, built with one tagged template: every interpolated value is escaped
 * unless it is already Html (another template's result). Nothing is built by concatenating
 * strings from data.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0]!;
  for (let i = 0; i < values.length; i++) text += render(values[i]) + strings[i + 1]!;
  return new Html(text);
}

/**
 * Data for the page's script, in a JSON block the browser never runs: `<` is escaped so no value
 * can close the element.
 */
export function jsonBlock(id: string, data: unknown): Html {
  return new Html(`<script type="application/json" id="${escapeHtml(id)}">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`);
}

/**
 * The web app's Content-Security-Policy: scripts, styles and fetches from this origin only, no
 * inline script or style, no framing, forms posting only here (docs/dashboard.md, "Security").
 */
export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function htmlResponse(body: Html, status = 200): Response {
  return new Response(`<!doctype html>\n${body.text}`, {
    status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': WEB_CSP, 'Cache-Control': 'no-store', ...SECURITY_HEADERS },
  });
}
