/**
 * What every smart-link page shares: the stylesheet, and the Response with
 * its headers. A page loads nothing from anywhere: its CSP allows only the inline style and
 * script whose hashes are computed here at module load (docs/smart-link-serving.md, "Pages").
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from '../../../http/escape-html';
import { SECURITY_HEADERS } from '../../../http/http.plugin';

/** An inline `<script>` or `<style>` body and the CSP source that allows exactly it. */
export interface InlineSource {
  text: string;
  cspSource: string;
}

export function inlineSource(text: string): InlineSource {
  return { text, cspSource: `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'` };
}

const STYLE = inlineSource(
  [
    'body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f7f9;color:#1d2330}',
    'main{max-width:28rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:12px;text-align:center;box-shadow:0 1px 4px rgba(0,0,0,.08)}',
    'h1{font-size:1.35rem;margin:0 0 1rem}p{line-height:1.5}.note{color:#5b6475;font-size:.92rem}',
    '.button{display:inline-block;padding:.8rem 1.4rem;border-radius:8px;background:#1f5eff;color:#fff;text-decoration:none;font-weight:600}',
    '.qr svg{width:16rem;max-width:100%;height:auto}.url{word-break:break-all;font-family:ui-monospace,monospace;font-size:.85rem;color:#5b6475}',
  ].join(''),
);

/** Schemes a page never links to: they run code or read local data instead of navigating. */
const UNSAFE_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'file', 'blob', 'about']);
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * Whether a page may link to `url`: an absolute URL whose scheme is written plainly (a blank or
 * control character before or inside it, which browsers strip, fails) and navigates.
 */
export function isNavigable(url: string): boolean {
  const scheme = SCHEME.exec(url);
  return scheme !== null && !UNSAFE_SCHEMES.has(scheme[1]!.toLowerCase());
}

/** Guards every href a page writes: the caller validated it, so a failure here is a bug (500). */
export function navigableHref(url: string): string {
  if (!isNavigable(url)) throw new TypeError('a smart-link page may only link to a navigable absolute URL');
  return escapeHtml(url);
}

export interface Page {
  /** Plain text; escaped here. */
  title: string;
  /** Extra `<head>` markup, already escaped. */
  head?: string;
  /** The `<body>` markup, already escaped. */
  body: string;
  script?: InlineSource;
  /** 200 unless the page explains a refusal (unavailable.ts). */
  status?: number;
}

/** The page's answer (200 unless it says otherwise): no cookies, never cached, framed by nobody, with the CSP of its own inline code. */
export function htmlPage(page: Page): Response {
  const csp = [
    "default-src 'none'",
    `style-src ${STYLE.cspSource}`,
    ...(page.script ? [`script-src ${page.script.cspSource}`] : []),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<title>${escapeHtml(page.title)}</title>${page.head ?? ''}<style>${STYLE.text}</style></head>` +
    `<body>${page.body}${page.script ? `<script>${page.script.text}</script>` : ''}</body></html>`;
  return new Response(html, {
    status: page.status ?? 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': csp,
      ...SECURITY_HEADERS,
    },
  });
}
