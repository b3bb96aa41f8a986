/**
 * What a visitor's browser gets when a smart link answers 403, 404 or 410: a short page in words,
 * with the status kept, instead of the JSON an API client gets (docs/dashboard-looks.md, "Error pages").
 * /c never answers with a page (spec, Redirects: no HTML).
 */
import { escapeHtml } from '../../../http/escape-html';
import { htmlPage } from './html';

const WORDS: Record<number, { title: string; text: string }> = {
  403: { title: 'This link is not available to you', text: 'The owner of this link does not send visits like yours anywhere.' },
  404: { title: 'Link not found', text: 'There is no link at this address, or it has been paused. Check the address with whoever gave it to you.' },
  410: { title: 'This link has ended', text: 'The link has expired or has had all the visits it allows.' },
};

/** The statuses a visitor sees as a page. */
export const VISITOR_PAGE_STATUSES: ReadonlySet<number> = new Set(Object.keys(WORDS).map(Number));

export function unavailablePage(status: number): Response {
  const words = WORDS[status] ?? WORDS[404]!;
  return htmlPage({
    title: words.title,
    body: `<main><h1>${escapeHtml(words.title)}</h1><p class="note">${escapeHtml(words.text)}</p></main>`,
    status,
  });
}
