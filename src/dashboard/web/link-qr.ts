/**
 * A link's QR code as a file to download from the links page: the short URL drawn by the same
 * code as /l's desktop page (SVG) or written as a PNG, named after the slug.
 */
import { SECURITY_HEADERS } from '../../http/http.plugin';
import type { LinkResponse } from '../../links/links.model';
import { qrPng } from '../../tracking/smartlinks/pages/qr-png';
import { qrSvg } from '../../tracking/smartlinks/pages/qr';

export const QR_FILE_TYPES = { svg: 'image/svg+xml', png: 'image/png' } as const;

export function linkQrFile(link: Pick<LinkResponse, 'slug' | 'url'>, format: keyof typeof QR_FILE_TYPES): Response {
  const file = format === 'svg' ? qrSvg(link.url) : qrPng(link.url);
  // A short URL is a few hundred characters at most (host and 64-character slug), far within a QR code.
  if (file === null) throw new Error(`no QR code holds the short URL of link ${link.slug}`);
  return new Response(file, {
    headers: {
      'Content-Type': QR_FILE_TYPES[format],
      'Content-Disposition': `attachment; filename="${link.slug}-qr.${format}"`,
      'Cache-Control': 'private, no-store',
      // An SVG opened on its own is a document: it may run nothing and load nothing.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      ...SECURITY_HEADERS,
    },
  });
}
