import type { IntegrationView } from '../../../protect/sync/integrations.model';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';

const GOOGLE_ADS = '/api/dashboard/integrations/google-ads';

function googleAds(view: IntegrationView): Html {
  const connection = view.connected
    ? html`<p>Connected to customer <code>${view.customer_id}</code>${view.login_customer_id ? html` through manager <code>${view.login_customer_id}</code>` : ''}, since ${view.updated_at ?? '—'}.</p>
<div class="actions"><button type="button" class="danger" data-api="${GOOGLE_ADS}" data-method="DELETE" data-confirm="Disconnect Google Ads?" data-error="google-ads-error">Disconnect</button></div>
<p class="error" id="google-ads-error" role="alert" hidden></p>`
    : html`<p class="muted">Not connected.</p>`;
  return html`<div class="panel">
<h2>Google Ads connection</h2>
${connection}
<details${view.connected ? '' : html` open`}><summary>${view.connected ? 'Replace the connection' : 'Connect'}</summary>
${apiForm({ id: 'google-ads', api: GOOGLE_ADS, method: 'PUT', submit: view.connected ? 'Replace connection' : 'Connect', success: 'reload' }, [
  field('google-ads', { name: 'customer_id', label: 'Customer id', required: true, placeholder: '123-456-7890' }),
  field('google-ads', { name: 'login_customer_id', label: 'Manager (login) customer id', hint: 'Only when the credentials sign in through a manager account.' }),
  field('google-ads', { name: 'developer_token', label: 'Developer token', type: 'password', required: true, autocomplete: 'off' }),
  field('google-ads', { name: 'client_id', label: 'OAuth client id', required: true, autocomplete: 'off' }),
  field('google-ads', { name: 'client_secret', label: 'OAuth client secret', type: 'password', required: true, autocomplete: 'off' }),
  field('google-ads', { name: 'refresh_token', label: 'OAuth refresh token', type: 'password', required: true, autocomplete: 'off' }),
])}
</details>
</div>`;
}

/** GET /settings: the Google Ads connection, the invalid-click threshold, the password and the sessions. */
export function settingsPage(input: { googleAds: IntegrationView; threshold: number }): Html {
  return appPage(
    { title: 'Settings', current: '/settings' },
    html`${googleAds(input.googleAds)}
<div class="row">
<div class="panel">
<h2>Invalid clicks</h2>
${apiForm({ id: 'protect', api: '/api/dashboard/protect/settings', method: 'PUT', submit: 'Save', success: 'reload' }, [
  field('protect', { name: 'invalid_threshold', label: 'Invalid from risk score', type: 'number', dataType: 'number', value: input.threshold, required: true, hint: '1 to 100: a click scoring this or more is invalid (exported and synced).' }),
])}
</div>
<div class="panel">
<h2>Password</h2>
${apiForm({ id: 'password', api: '/api/dashboard/password', submit: 'Change password', success: 'reload' }, [
  field('password', { name: 'current_password', label: 'Current password', type: 'password', required: true, autocomplete: 'current-password' }),
  field('password', { name: 'new_password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 8 characters. Your other sessions end.' }),
])}
<h2>Sessions</h2>
<div class="actions"><button type="button" class="danger" data-api="/api/dashboard/sessions/revoke-all" data-method="POST" data-success="redirect:/login" data-confirm="Sign out on every device, this one included?">Sign out everywhere</button></div>
</div>
</div>`,
  );
}
