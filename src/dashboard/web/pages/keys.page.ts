import type { ApiKeyListing } from '../../../auth/api-keys';
import type { Page } from '../../../http/pagination';
import { copyBox } from '../copy-box';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { pager } from '../pager';
import { limitCell, newLimitField } from '../rate-limit-cell';

const when = (date: Date | null) => (date ? date.toISOString().slice(0, 16).replace('T', ' ') : '—');

/** GET /keys: create a key (shown once), list keys by prefix with their rate limits, change a limit, revoke. */
export function keysPage(page: Page<ApiKeyListing>, where: { first: boolean }, deploymentLimit: number | null): Html {
  const keys = page.data;
  const rows = keys.map(
    (key) => html`<tr>
<td>${key.name}</td><td><code>${key.prefix}…</code></td><td>${when(key.created_at)}</td><td>${when(key.last_used_at)}</td>
${key.revoked_at ? html`<td>—</td>` : limitCell({ form: `key-limit-${key.id}`, api: `/api/dashboard/keys/${key.id}`, own: key.rate_limit_per_minute, deploymentDefault: deploymentLimit, keyName: key.name })}
<td>${key.revoked_at
      ? html`revoked ${when(key.revoked_at)}`
      : html`<button type="button" class="danger" data-api="/api/dashboard/keys/${key.id}" data-method="DELETE" data-confirm="Revoke ${key.name}? Calls with it fail at once." data-error="key-error-${key.id}" aria-label="Revoke ${key.name}">Revoke</button><p class="error" id="key-error-${key.id}" role="alert" hidden></p>`}</td>
</tr>`,
  );
  return appPage(
    { title: 'API keys', current: '/keys' },
    html`<div class="panel">
<h2>New API key</h2>
<p class="muted small">For server-to-server calls (<code>Authorization: Bearer …</code>). One key per integration, so each can be revoked alone. Never put a key in a web page or an app.</p>
${apiForm({ id: 'new-key', api: '/api/dashboard/keys', submit: 'Create key', success: 'show:api_key', result: 'new-key-value', refresh: 'keys-list' }, [
  field('new-key', { name: 'name', label: 'Name', required: true, placeholder: 'Postbacks from the ad network' }),
  newLimitField('new-key', deploymentLimit),
])}
${copyBox({ id: 'new-key-value', notice: 'Copy the key now: it is shown this once and stored only as a hash.' })}
</div>
<div class="panel">
<h2>Keys</h2>
<div id="keys-list">
${keys.length === 0
  ? html`<p class="muted">No keys yet.</p>`
  : html`<div class="table-box"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created (UTC)</th><th scope="col">Last used</th><th scope="col">Rate limit</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
${pager('/keys', { next_cursor: page.next_cursor, first: where.first, shown: keys.length })}
</div>
</div>`,
  );
}
