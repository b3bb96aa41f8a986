/**
 * The desktop page of a store or deep-link action: a QR code of the /l URL itself, so the phone
 * that scans it goes through the same rules as a mobile visitor. Drawn by `uqr` as inline SVG.
 */
import { renderSVG } from 'uqr';
import { escapeHtml } from '../../../http/escape-html';
import { htmlPage } from './html';

export interface QrInput {
  /** The /l URL the code encodes, also shown as text. */
  url: string;
  title?: string;
}

/** ECC level M with the standard four-module quiet zone; L when M cannot hold the URL. */
export const QR_OPTIONS = { ecc: 'M', border: 4 } as const;
const QR_OPTIONS_LONG = { ecc: 'L', border: 4 } as const;

/** What `draw` makes of the code at level M, else L; null for a URL too long for any QR code. */
export function withQrLevel<T>(draw: (options: typeof QR_OPTIONS | typeof QR_OPTIONS_LONG) => T): T | null {
  for (const options of [QR_OPTIONS, QR_OPTIONS_LONG]) {
    try {
      return draw(options);
    } catch {
      // Too much data at this level: try the next.
    }
  }
  return null;
}

/** The code as SVG markup, or null for a URL too long for any QR code (the page then shows the text). */
export function qrSvg(url: string): string | null {
  return withQrLevel((options) => renderSVG(url, options).replace('<svg ', '<svg role="img" aria-label="QR code" '));
}

export function qrPage({ url, title }: QrInput): Response {
  const heading = title ?? 'Open this link on your phone';
  const svg = qrSvg(url);
  const body =
    `<main><h1>${escapeHtml(heading)}</h1>` +
    (svg === null
      ? '<p>Open this address on your phone:</p>'
      : `<p>Scan the code with your phone’s camera.</p><div class="qr">${svg}</div>`) +
    `<p class="url">${escapeHtml(url)}</p></main>`;
  return htmlPage({ title: heading, body });
}
