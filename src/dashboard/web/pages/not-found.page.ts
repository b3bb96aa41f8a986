import { html, htmlResponse } from '../html';
import { framedPage } from '../layout';

/**
 * What a browser gets for a path of the app nobody serves: a page in the app's frame with the
 * way on, never raw JSON (docs/dashboard-looks.md, "Error pages"). API clients keep the JSON 404.
 */
export function notFoundPage(): Response {
  return htmlResponse(
    framedPage(
      { title: 'Page not found', current: null },
      html`<div class="panel"><p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
<p><a href="/">Go to the overview</a> or <a href="/links">your links</a>.</p></div>`,
    ),
    404,
  );
}
