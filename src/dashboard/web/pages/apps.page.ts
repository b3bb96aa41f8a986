import { PLATFORMS, type AppResponse } from '../../../apps/apps.model';
import type { Page } from '../../../http/pagination';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { pager } from '../pager';
import { limitCell, newLimitField } from '../rate-limit-cell';

/** GET /apps: create an app; each app with its SDK key (public by design: it ships in the app) and the key's rate limit. */
export function appsPage(page: Page<AppResponse>, where: { first: boolean }, deploymentLimit: number | null): Html {
  const apps = page.data;
  const rows = apps.map(
    (app) => html`<tr><td>${app.name}</td><td>${app.platform}</td><td class="mono">${app.bundle_id ?? '—'}</td><td><code>${app.sdk_key}</code></td><td class="num">${app.reattribution_days}</td>
${limitCell({ form: `app-limit-${app.id}`, api: `/api/dashboard/apps/${app.id}`, own: app.rate_limit_per_minute, deploymentDefault: deploymentLimit, keyName: app.name })}</tr>`,
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
${apps.length === 0
  ? html`<p class="muted">No apps yet.</p>`
  : html`<div class="table-box"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Platform</th><th scope="col">Bundle id</th><th scope="col">SDK key</th><th scope="col" class="num">Re-attribution days</th><th scope="col">SDK key rate limit</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
${pager('/apps', { next_cursor: page.next_cursor, first: where.first, shown: apps.length })}
</div>`,
  );
}
