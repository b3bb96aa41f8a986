import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { escapeHtml } from '../../../../src/http/escape-html';
import { htmlPage, isNavigable, navigableHref } from '../../../../src/tracking/smartlinks/pages/html';
import { decodeEntities, expectSafePage, readPage } from './page-reader';

/** Text built to break out of markup: the five special characters, tags, quotes, entities. */
const hostile = fc.oneof(
  fc.string({ unit: fc.constantFrom('<', '>', '"', "'", '&', 'a', ' ', '/', '=', ';', '#', 'x', 'script', 'amp;', '&lt;', '\u00e9') }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
);

describe('escapeHtml', () => {
  test('the five special characters become entities', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
    expect(escapeHtml('plain text, café')).toBe('plain text, café');
  });

  test('property: the output holds no special character but in an entity, and decodes back to the input', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const escaped = escapeHtml(text);
        expect(/[<>"']/.test(escaped)).toBe(false);
        expect(escaped.replace(/&(amp|lt|gt|quot|#39);/g, '')).not.toContain('&');
        expect(decodeEntities(escaped)).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });

  test('property: escaped text in a text node and in a quoted attribute never adds an element or an attribute', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (text) => {
        const page = await readPage(htmlPage({ title: text, body: `<main><p title="${escapeHtml(text)}" class='${escapeHtml(text)}'>${escapeHtml(text)}</p></main>` }));
        expect(page.elements.map((e) => e.tag)).toEqual(['html', 'head', 'meta', 'meta', 'title', 'style', 'body', 'main', 'p']);
        const p = page.elements.at(-1)!;
        expect(p.attrs).toEqual({ title: text, class: text });
        expect(page.scripts).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});

describe('isNavigable', () => {
  test('absolute URLs that navigate', () => {
    for (const url of ['https://shop.example.com/', 'http://a.example', 'myapp://product/1', 'myapp:open', 'intent://x#Intent;scheme=myapp;end', 'itms-apps://apps.apple.com/app/id1', 'market://details?id=x']) {
      expect([url, isNavigable(url)]).toEqual([url, true]);
    }
  });

  test('scripts, local data and anything a browser would clean up first are refused', () => {
    for (const url of ['javascript:alert(1)', 'JavaScript:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', '\u0001javascript:x', 'vbscript:msgbox', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'blob:https://a/b', '/relative', '//evil.example', '']) {
      expect([url, isNavigable(url)]).toEqual([url, false]);
      if (url !== '') expect(() => navigableHref(url)).toThrow(TypeError);
    }
  });
});

describe('htmlPage', () => {
  test('headers, CSP by hash and nothing loaded', async () => {
    const response = htmlPage({ title: 'T', body: '<main>hi</main>' });
    const page = await readPage(response);
    expectSafePage(response, page);
    expect(page.styles).toHaveLength(1);
    expect(page.csp['img-src']).toBeUndefined();
  });
});
