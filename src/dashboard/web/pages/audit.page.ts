import type { AuditEntry } from '../../../audit-log/audit-log.model';
import type { Page } from '../../../http/pagination';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { pager } from '../pager';

const when = (iso: string) => iso.slice(0, 19).replace('T', ' ');

function actor(entry: AuditEntry): Html {
  if (entry.actor.kind === 'user') return html`${entry.actor.email ?? 'a removed user'}`;
  if (entry.actor.kind === 'api_key') return html`API key <code>${entry.actor.prefix ?? entry.actor.api_key_id}…</code>`;
  return html`<span class="muted">operator (CLI)</span>`;
}

/** GET /audit: who changed what and when, newest first, a page at a time. */
export function auditPage(page: Page<AuditEntry>, where: { first: boolean }): Html {
  const rows = page.data.map(
    (entry) => html`<tr><td class="mono">${when(entry.created_at)}</td><td>${actor(entry)}</td><td>${entry.action}</td><td>${entry.entity}${entry.entity_id ? html` <code class="small">${entry.entity_id}</code>` : ''}</td>
<td>${entry.detail === null ? '' : html`<code class="small">${JSON.stringify(entry.detail)}</code>`}</td></tr>`,
  );
  return appPage(
    { title: 'Audit log', current: '/audit' },
    html`<div class="panel">
<p class="muted small">Every change to the organization, by a member (their email) or an API key (its prefix), newest first.</p>
${page.data.length === 0
  ? html`<p class="muted">Nothing changed yet.</p>`
  : html`<div class="table-box"><table>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">What</th><th scope="col">Detail</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
${pager('/audit', { next_cursor: page.next_cursor, first: where.first, shown: page.data.length })}
</div>`,
  );
}
