import jsQR from 'jsqr';
import { PNG } from 'pngjs';

/** The text a PNG's QR code holds (jsQR reading the pixels pngjs decodes); null when none is found. */
export function decodeQrPng(bytes: Uint8Array): string | null {
  const image = PNG.sync.read(Buffer.from(bytes));
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}
