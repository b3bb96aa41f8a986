import type { FxRateRow } from '../../../fx-rates/fx-rates.model';
import type { IntegrationView } from '../../../protect/sync/integrations.model';
import type { ReportingSettings } from '../../../settings/settings.repo';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';

const GOOGLE_ADS = '/api/dashboard/integrations/google-ads';
/** The newest rates the page lists; the API lists the rest (GET /api/dashboard/fx-rates). */
export const SETTINGS_RATES_SHOWN = 200;

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

/** The time zones the runtime knows, for the list the zone field suggests from. */
const ZONES: readonly string[] = typeof Intl.supportedValuesOf === 'function' ? ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')] : ['UTC'];

function reporting(settings: ReportingSettings, rates: readonly FxRateRow[]): Html {
  return html`<div class="row">
<div class="panel">
<h2>Reporting</h2>
<p class="muted small">Every report's day is a day in this zone, and its amounts are in this currency. Exchange rates stay quoted in the currency they were uploaded under.</p>
${apiForm({ id: 'reporting', api: '/api/dashboard/settings', method: 'PUT', submit: 'Save reporting settings', success: 'reload', changedOnly: true }, [
  html`<div class="field">
<label for="reporting-timezone">Time zone</label>
<input id="reporting-timezone" name="timezone" value="${settings.timezone}" list="time-zones" required autocomplete="off" aria-describedby="reporting-timezone-hint reporting-timezone-error">
<datalist id="time-zones">${ZONES.map((zone) => html`<option value="${zone}"></option>`)}</datalist>
<p class="hint" id="reporting-timezone-hint">An IANA zone, such as UTC, Europe/Berlin or America/New_York.</p>
<p class="error" id="reporting-timezone-error" data-error-for="timezone" hidden></p>
</div>`,
  field('reporting', { name: 'currency', label: 'Reporting currency', value: settings.currency, required: true, hint: 'An ISO 4217 code: three capital letters, such as USD or EUR.' }),
])}
</div>
<div class="panel">
<h2>Exchange rates</h2>
<p class="muted small">Units of ${settings.currency} per unit of each currency, holding from their day until the next day with a rate. One rate a line: <code>day,currency,rate</code>, such as <code>2026-09-01,EUR,1.08</code>; a first line <code>day,currency,rate</code> is skipped. A currency-day uploaded again is replaced.</p>
${apiForm({ id: 'fx-rates', api: '/api/dashboard/fx-rates', method: 'PUT', submit: 'Upload rates', success: 'reload' }, [
  html`<div class="field">
<label for="fx-rates-file">CSV file</label>
<input id="fx-rates-file" type="file" accept=".csv,text/csv,text/plain" data-fills="fx-rates-rates" aria-describedby="fx-rates-file-hint">
<p class="hint" id="fx-rates-file-hint">Optional: its text goes into the box below, to check before uploading.</p>
</div>`,
  field('fx-rates', { name: 'rates', label: 'Rates (CSV)', rows: 6, required: true, dataType: 'csv', columns: 'day,currency,rate:number', placeholder: '2026-09-01,EUR,1.08' }),
])}
<h3>Stored rates</h3>
${rates.length === 0
  ? html`<p class="muted">No rates yet.</p>`
  : html`<div class="table-box"><table aria-label="Stored exchange rates, newest day first">
<thead><tr><th scope="col">Day</th><th scope="col">Currency</th><th scope="col" class="num">Rate</th><th scope="col">In</th></tr></thead>
<tbody>${rates.map((rate) => html`<tr><td>${rate.day}</td><td>${rate.currency}</td><td class="num">${rate.rate}</td><td>${rate.quote}</td></tr>`)}</tbody></table></div>`}
</div>
</div>`;
}

/** GET /settings: reporting zone and currency, exchange rates, the Google Ads connection, the invalid-click threshold, the password and the sessions. */
export function settingsPage(input: { googleAds: IntegrationView; threshold: number; reporting: ReportingSettings; rates: readonly FxRateRow[] }): Html {
  return appPage(
    { title: 'Settings', current: '/settings' },
    html`${reporting(input.reporting, input.rates)}
${googleAds(input.googleAds)}
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
