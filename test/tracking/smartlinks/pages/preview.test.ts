import { describe, expect, test } from 'bun:test';
import { previewPage } from '../../../../src/tracking/smartlinks/pages/preview';
import { expectSafePage, readPage, type ParsedPage } from './page-reader';

const L_URL = 'http://track.test.local/l/spring-sale?utm_source=news';

const metaContent = (page: ParsedPage, key: string) =>
  page.elements.filter((e) => e.tag === 'meta' && (e.attrs.property === key || e.attrs.name === key)).map((e) => e.attrs.content);

describe('previewPage', () => {
  test('Open Graph and Twitter tags from the preview; a link onward; no script', async () => {
    const preview = { title: 'Spring sale', description: 'Up to 50% off', image: 'https://cdn.shop.example/sale.png' };
    const response = previewPage({ url: L_URL, preview, fallbackTitle: 'spring-sale' });
    const page = await readPage(response);
    expectSafePage(response, page);
    expect(metaContent(page, 'og:title')).toEqual(['Spring sale']);
    expect(metaContent(page, 'og:description')).toEqual(['Up to 50% off']);
    expect(metaContent(page, 'og:image')).toEqual(['https://cdn.shop.example/sale.png']);
    expect(metaContent(page, 'og:url')).toEqual([L_URL]);
    expect(metaContent(page, 'twitter:card')).toEqual(['summary_large_image']);
    expect(page.scripts).toEqual([]);
    expect(page.text).toContain('Spring sale');
    expect(page.elements.filter((e) => e.tag === 'a').map((e) => e.attrs.href)).toEqual([L_URL]);
  });

  test('no preview: the fallback title, a summary card, no description or image', async () => {
    const page = await readPage(previewPage({ url: L_URL, preview: {}, fallbackTitle: 'spring-sale' }));
    expect(metaContent(page, 'og:title')).toEqual(['spring-sale']);
    expect(metaContent(page, 'og:description')).toEqual([]);
    expect(metaContent(page, 'og:image')).toEqual([]);
    expect(metaContent(page, 'twitter:card')).toEqual(['summary']);
    expect(page.text).toContain('spring-sale');
  });

  test('an onward link other than the /l URL', async () => {
    const page = await readPage(previewPage({ url: L_URL, preview: {}, fallbackTitle: 't', onward: 'https://shop.example.com/' }));
    expect(page.elements.filter((e) => e.tag === 'a').map((e) => e.attrs.href)).toEqual(['https://shop.example.com/']);
    expect(metaContent(page, 'og:url')).toEqual([L_URL]);
  });

  test('security: an image that is not https is left out; markup in any field is text', async () => {
    for (const image of ['http://cdn.example/x.png', 'javascript:alert(1)', 'data:image/png;base64,AAAA', '//cdn.example/x.png']) {
      const page = await readPage(previewPage({ url: L_URL, preview: { image }, fallbackTitle: 't' }));
      expect(metaContent(page, 'og:image')).toEqual([]);
    }
    const evil = `"><script>alert(1)</script><meta property="og:title" content="pwned`;
    const response = previewPage({ url: `${L_URL}&q=${evil}`, preview: { title: evil, description: evil, image: `https://cdn.example/${evil}` }, fallbackTitle: 't' });
    const page = await readPage(response);
    expectSafePage(response, page);
    expect(page.scripts).toEqual([]);
    expect(metaContent(page, 'og:title')).toEqual([evil]);
    expect(metaContent(page, 'og:description')).toEqual([evil]);
    expect(metaContent(page, 'og:url')).toEqual([`${L_URL}&q=${evil}`]);
    expect(page.elements.filter((e) => e.tag === 'title')).toHaveLength(1);
  });
});
