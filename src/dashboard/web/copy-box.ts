import { html, type Html } from './html';

/**
 * The box a secret or a one-time link appears in after a form's answer: the value, a copy button
 * (assets/app.js, data-copy) and a status line saying it was copied. Hidden until filled.
 */
export function copyBox(options: { id: string; notice: string }): Html {
  return html`<div data-result-box hidden>
<p class="notice" role="status">${options.notice}</p>
<code class="secret" id="${options.id}" tabindex="0"></code>
<div class="actions"><button type="button" class="secondary" data-copy="${options.id}">Copy</button><span class="muted small" data-copied-for="${options.id}" role="status"></span></div>
</div>`;
}
