import { expect } from 'bun:test';
import { createHash } from 'node:crypto';
import { expectSecurityHeaders } from '../../../support/http';

export interface PageElement {
  tag: string;
  attrs: Record<string, string>;
}

export interface ParsedPage {
  html: string;
  elements: PageElement[];
  scripts: string[];
  styles: string[];
  /** Text outside scripts and styles, entities decoded. */
  text: string;
  csp: Record<string, string[]>;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The inverse of the pages' escape (it writes only these five entities). */
export const decodeEntities = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);

/** Parses a page with Bun's HTMLRewriter (lol-html), as a browser tokenizer would see it. */
export async function readPage(response: Response): Promise<ParsedPage> {
  const html = await response.clone().text();
  const elements: PageElement[] = [];
  const scripts: string[] = [];
  const styles: string[] = [];
  let text = '';
  let inside: 'script' | 'style' | null = null;
  await new HTMLRewriter()
    .on('*', {
      element(element) {
        elements.push({ tag: element.tagName, attrs: Object.fromEntries([...element.attributes].map(([name, value]) => [name, decodeEntities(value)])) });
        if (element.tagName === 'script' || element.tagName === 'style') {
          const kind = element.tagName;
          (kind === 'script' ? scripts : styles).push('');
          inside = kind;
          element.onEndTag(() => {
            inside = null;
          });
        }
      },
      text(chunk) {
        if (inside === 'script') scripts[scripts.length - 1] += chunk.text;
        else if (inside === 'style') styles[styles.length - 1] += chunk.text;
        else text += decodeEntities(chunk.text);
      },
    })
    .transform(new Response(html))
    .text();
  const csp: Record<string, string[]> = {};
  for (const directive of (response.headers.get('content-security-policy') ?? '').split(';')) {
    const [name, ...sources] = directive.trim().split(/\s+/);
    if (name) csp[name] = sources;
  }
  return { html, elements, scripts, styles, text, csp };
}

const hashSource = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Elements that would load something, frame something or submit somewhere. */
const LOADING_TAGS = new Set(['img', 'link', 'iframe', 'object', 'embed', 'form', 'base', 'video', 'audio', 'source', 'frame', 'image', 'use']);

/**
 * The rules every smart-link page keeps: 200, HTML, never cached, the security headers, no cookie,
 * a CSP allowing only its own inline code by hash, and nothing loaded from anywhere.
 */
export function expectSafePage(response: Response, page: ParsedPage): void {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expectSecurityHeaders(response);
  expect(response.headers.get('set-cookie')).toBeNull();
  expect(page.csp['default-src']).toEqual(["'none'"]);
  expect(page.csp['base-uri']).toEqual(["'none'"]);
  expect(page.csp['form-action']).toEqual(["'none'"]);
  expect(page.csp['frame-ancestors']).toEqual(["'none'"]);
  expect(page.csp['style-src']).toEqual(page.styles.map(hashSource));
  if (page.scripts.length === 0) expect(page.csp['script-src']).toBeUndefined();
  else expect(page.csp['script-src']).toEqual(page.scripts.map(hashSource));
  for (const sources of Object.values(page.csp)) expect(sources.filter((s) => s.includes('unsafe') || s === '*' || /^https?:/.test(s))).toEqual([]);
  for (const element of page.elements) {
    expect(LOADING_TAGS.has(element.tag)).toBe(false);
    for (const name of Object.keys(element.attrs)) {
      expect(name === 'src' || name === 'srcset' || name === 'style' || name.startsWith('on')).toBe(false);
      if (name === 'href') expect(element.tag).toBe('a');
    }
    if (element.tag === 'meta' && 'http-equiv' in element.attrs) throw new Error('a page sets no header from a meta tag');
  }
}

export const anchorHref = (page: ParsedPage, id: string) => page.elements.find((e) => e.tag === 'a' && e.attrs.id === id)?.attrs.href;
