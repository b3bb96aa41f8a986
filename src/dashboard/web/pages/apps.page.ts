import { PLATFORMS, type AppResponse } from '../../../apps/apps.model';
import type { Page } from '../../../http/pagination';
import { copyBox } from '../copy-box';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { pager } from '../pager';
import { limitCell, newLimitField } from '../rate-limit-cell';

/** An app's edit form (the fields PATCH takes: platform and bundle id are fixed), SDK key rotation and delete. */
function appActions(app: AppResponse): Html {
  const form = `edit-app-${app.id}`;
  return html`<details><summary>Edit <span class="visually-hidden">${app.name}</span></summary>
${apiForm({ id: form, api: `/api/dashboard/apps/${app.id}`, method: 'PATCH', submit: 'Save', changedOnly: true, label: `Edit ${app.name}` }, [
  field(form, { name: 'name', label: 'Name', value: app.name, required: true }),
  field(form, { name: 'store_url', label: 'Store URL', type: 'url', value: app.store_url, emptyIsNull: true }),
  field(form, { name: 'apple_app_id', label: 'App Store id', value: app.apple_app_id, emptyIsNull: true, hint: 'Digits only; SKAdNetwork postbacks name the app by it.' }),
  field(form, { name: 'reattribution_days', label: 'Re-attribution days', type: 'number', dataType: 'number', value: app.reattribution_days }),
])}
</details>
<div class="actions">
<button type="button" class="secondary" data-api="/api/dashboard/apps/${app.id}/rotate-sdk-key" data-method="POST" data-confirm="Rotate the SDK key of ${app.name}? Builds with the old key are refused at once." data-success="show:sdk_key" data-result="rotated-sdk-key" data-refresh="apps-list" data-error="app-error-${app.id}" aria-label="Rotate SDK key of ${app.name}">Rotate SDK key</button>
<button type="button" class="danger" data-api="/api/dashboard/apps/${app.id}" data-method="DELETE" data-confirm="Delete ${app.name}? Its SDK key is refused at once; its reports stay." data-error="app-error-${app.id}" aria-label="Delete ${app.name}">Delete</button>
</div>
<p class="error" id="app-error-${app.id}" role="alert" hidden></p>`;
}

/** GET /apps: create an app; each app with its SDK key (public by design: it ships in the app), the key's rate limit, edit, rotation and delete. */
export function appsPage(page: Page<AppResponse>, where: { first: boolean }, deploymentLimit: number | null): Html {
  const apps = page.data;
  const rows = apps.map(
    (app) => html`<tr><td>${app.name}</td><td>${app.platform}</td><td class="mono">${app.bundle_id ?? '—'}</td><td><code>${app.sdk_key}</code></td><td class="num">${app.reattribution_days}</td>
${limitCell({ form: `app-limit-${app.id}`, api: `/api/dashboard/apps/${app.id}`, own: app.rate_limit_per_minute, deploymentDefault: deploymentLimit, keyName: app.name })}<td>${appActions(app)}</td></tr>`,
  );
  return appPage(
    { title: 'Apps', current: '/apps' },
    html`<div class="panel">
<h2>New app</h2>
${apiForm({ id: 'new-app', api: '/api/dashboard/apps', submit: 'Create app', success: 'reload' }, [
  field('new-app', { name: 'name', label: 'Name', required: true }),
  field('new-app', { name: 'platform', label: 'Platform', options: PLATFORMS.map((p) => [p, p] as const), value: 'ios', hint: 'The SDK key works on this platform only.' }),
  field('new-app', { name: 'bundle_id', label: 'Bundle id or package name' }),
  field('new-app', { name: 'store_url', label: 'Store URL', type: 'url' }),
  newLimitField('new-app', deploymentLimit),
])}
</div>
<div class="panel">
<h2>Your apps and SDK keys</h2>
<p class="muted small">An SDK key is sent by your app as <code>X-SDK-Key</code>; it is not a secret, and works only for its app's platform.</p>
${copyBox({ id: 'rotated-sdk-key', notice: 'The new SDK key: put it in your next build. The old one is refused from now on.' })}
<div id="apps-list">
${apps.length === 0
  ? html`<p class="muted">No apps yet.</p>`
  : html`<div class="table-box"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Platform</th><th scope="col">Bundle id</th><th scope="col">SDK key</th><th scope="col" class="num">Re-attribution days</th><th scope="col">SDK key rate limit</th><th scope="col">Manage</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
${pager('/apps', { next_cursor: page.next_cursor, first: where.first, shown: apps.length })}
</div>
</div>`,
  );
}
