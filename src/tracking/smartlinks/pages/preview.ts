/**
 * What a crawler or link-preview bot gets from a smart link: Open Graph and Twitter card tags
 * from the link's `preview`, so a shared link unfurls with its own title and image. A person
 * who lands here anyway gets a plain link onward; nothing redirects.
 */
import { escapeHtml } from '../../../http/escape-html';
import { htmlPage, navigableHref } from './html';

export interface LinkPreview {
  title?: string | null;
  description?: string | null;
  /** An https URL; anything else is left out. */
  image?: string | null;
}

export interface PreviewInput {
  /** The /l URL: `og:url`, and the link onward unless `onward` is given. */
  url: string;
  preview: LinkPreview;
  /** The title when the preview has none (the link's slug or destination, say). */
  fallbackTitle: string;
  onward?: string;
}

const HTTPS = /^https:\/\/[^\s]+$/i;

const meta = (kind: 'property' | 'name', key: string, value: string) => `<meta ${kind}="${key}" content="${escapeHtml(value)}">`;

export function previewPage({ url, preview, fallbackTitle, onward }: PreviewInput): Response {
  const title = preview.title || fallbackTitle;
  const description = preview.description || null;
  const image = preview.image && HTTPS.test(preview.image) ? preview.image : null;
  const head = [
    meta('property', 'og:type', 'website'),
    meta('property', 'og:title', title),
    ...(description ? [meta('property', 'og:description', description), meta('name', 'description', description)] : []),
    ...(image ? [meta('property', 'og:image', image)] : []),
    meta('property', 'og:url', url),
    meta('name', 'twitter:card', image ? 'summary_large_image' : 'summary'),
  ].join('');
  const body =
    `<main><h1>${escapeHtml(title)}</h1>` +
    (description ? `<p>${escapeHtml(description)}</p>` : '') +
    `<p><a class="button" href="${navigableHref(onward ?? url)}">Continue</a></p></main>`;
  return htmlPage({ title, head, body });
}
