/**
 * A QR code as a PNG file (the web app's QR download): the matrix from `uqr`, at the levels
 * qr.ts uses, written as an 8-bit greyscale PNG with node:zlib, so no image package is needed.
 */
import { crc32, deflateSync } from 'node:zlib';
import { encode } from 'uqr';
import { withQrLevel } from './qr';

/** Pixels per module: a 33-module code is 330 px, large enough to print and to scan from a screen. */
export const QR_PNG_SCALE = 10;
const PNG_SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const BLACK = 0x00;
const WHITE = 0xff;

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A square greyscale image of `modules` (true: dark), each module `scale` pixels wide. */
export function modulesToPng(modules: readonly (readonly boolean[])[], scale: number): Buffer {
  const width = modules.length * scale;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header[8] = 8; // bits per sample
  header[9] = 0; // greyscale
  // bytes 10-12: deflate, adaptive filtering, no interlace
  const stride = width + 1; // each scanline starts with its filter byte (0: none)
  const pixels = Buffer.alloc(stride * width, WHITE);
  modules.forEach((row, y) => {
    const line = Buffer.alloc(stride, WHITE);
    line[0] = 0;
    row.forEach((dark, x) => {
      if (dark) line.fill(BLACK, 1 + x * scale, 1 + (x + 1) * scale);
    });
    for (let i = 0; i < scale; i++) line.copy(pixels, (y * scale + i) * stride);
  });
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', new Uint8Array(0))]);
}

/** The code of `url` as PNG bytes, with the four-module quiet zone; null for a URL too long for any QR code. */
export function qrPng(url: string, scale = QR_PNG_SCALE): Buffer | null {
  return withQrLevel((options) => modulesToPng(encode(url, options).data, scale));
}
