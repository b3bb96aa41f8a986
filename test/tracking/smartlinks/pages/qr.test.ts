import { describe, expect, test } from 'bun:test';
import { encode, renderSVG } from 'uqr';
import { QR_OPTIONS, qrPage } from '../../../../src/tracking/smartlinks/pages/qr';
import { expectSafePage, readPage, type ParsedPage } from './page-reader';

const L_URL = 'http://track.test.local/l/spring-sale?utm_source=news';

/** The dark modules of an SVG drawn as `M{x},{y}h{s}v{s}h-{s}z` squares, as a matrix of `size`. */
function svgMatrix(svg: string, size: number): boolean[][] {
  const pixel = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)![1]) / size;
  const matrix = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  for (const [, x, y] of svg.matchAll(/M(\d+),(\d+)h/g)) matrix[Number(y) / pixel]![Number(x) / pixel] = true;
  return matrix;
}

/** A QR finder pattern (7x7: dark ring, light ring, dark 3x3 core) with its top-left corner at (row, col). */
function hasFinder(matrix: boolean[][], row: number, col: number): boolean {
  for (let r = 0; r < 7; r++) {
    for (let c = 0; c < 7; c++) {
      const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
      if (matrix[row + r]![col + c] !== (ring !== 2)) return false;
    }
  }
  return true;
}

const svgOf = (page: ParsedPage) => /<svg[\s\S]*<\/svg>/.exec(page.html)?.[0];

describe('qrPage', () => {
  test('an inline SVG QR code of the /l URL, and the URL as text', async () => {
    const response = qrPage({ url: L_URL });
    const page = await readPage(response);
    expectSafePage(response, page);
    const svg = svgOf(page)!;
    expect(svg.replace(' role="img" aria-label="QR code"', '')).toBe(renderSVG(L_URL, QR_OPTIONS));
    const code = encode(L_URL, QR_OPTIONS);
    const matrix = svgMatrix(svg, code.size);
    expect(matrix).toEqual(code.data);
    // Independently of the library: the three finder patterns inside the four-module quiet zone.
    const border = QR_OPTIONS.border;
    expect([hasFinder(matrix, border, border), hasFinder(matrix, border, code.size - border - 7), hasFinder(matrix, code.size - border - 7, border)]).toEqual([true, true, true]);
    expect(matrix[0]!.some(Boolean)).toBe(false);
    expect(page.text).toContain(L_URL);
    expect(page.elements.find((e) => e.tag === 'title')).toBeDefined();
    expect(page.text).toContain('Open this link on your phone');
  });

  test('a different URL gives a different code; a title is shown', async () => {
    const page = await readPage(qrPage({ url: `${L_URL}&x=1`, title: 'Get the Shop app' }));
    expect(svgOf(page)).not.toBe(svgOf(await readPage(qrPage({ url: L_URL }))));
    expect(page.text).toContain('Get the Shop app');
  });

  test('a URL too long for any QR code: the page still answers, with the address as text', async () => {
    const long = `${L_URL}&pad=${'x'.repeat(4000)}`;
    const response = qrPage({ url: long });
    const page = await readPage(response);
    expectSafePage(response, page);
    expect(svgOf(page)).toBeUndefined();
    expect(page.text).toContain(long);
  });

  test('security: markup in the URL or title is text', async () => {
    const url = `${L_URL}&q="><script>alert(1)</script>`;
    const response = qrPage({ url, title: '<img src=x onerror=alert(1)>' });
    const page = await readPage(response);
    expectSafePage(response, page);
    expect(page.scripts).toEqual([]);
    expect(page.text).toContain(url);
    expect(page.text).toContain('<img src=x onerror=alert(1)>');
  });
});

