import { describe, expect, test } from 'bun:test';
import { PNG } from 'pngjs';
import { encode } from 'uqr';
import { QR_OPTIONS } from '../../../../src/tracking/smartlinks/pages/qr';
import { modulesToPng, qrPng, QR_PNG_SCALE } from '../../../../src/tracking/smartlinks/pages/qr-png';
import { decodeQrPng } from '../../../support/qr-decode';

describe('qrPng', () => {
  test('a PNG whose QR code reads back as the URL', () => {
    const url = 'http://track.test.local/c/spring-sale';
    const png = qrPng(url)!;
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(decodeQrPng(png)).toBe(url);
  });

  test('each module is scale pixels wide, the quiet zone included, and the pixels follow the matrix', () => {
    const url = 'https://links.example.com/l/abc';
    const matrix = encode(url, QR_OPTIONS).data;
    const image = PNG.sync.read(qrPng(url)!);
    expect(image.width).toBe(matrix.length * QR_PNG_SCALE);
    expect(image.height).toBe(image.width);
    const dark = (x: number, y: number) => image.data[(y * image.width + x) * 4] === 0;
    for (let y = 0; y < matrix.length; y++) {
      for (let x = 0; x < matrix.length; x++) expect(dark(x * QR_PNG_SCALE + 3, y * QR_PNG_SCALE + 7)).toBe(matrix[y]![x]!);
    }
  });

  test('a tiny matrix at scale 1 is exactly its pixels', () => {
    const image = PNG.sync.read(modulesToPng([[true, false], [false, true]], 1));
    expect([image.width, image.height]).toEqual([2, 2]);
    expect([0, 1, 2, 3].map((i) => image.data[i * 4])).toEqual([0, 255, 255, 0]);
  });

  test('a URL too long for any QR code has no PNG', () => {
    expect(qrPng(`https://x.test/${'a'.repeat(4000)}`)).toBeNull();
  });
});
