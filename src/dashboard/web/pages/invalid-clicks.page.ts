import type { InvalidIpRow } from '../../../protect/export/export.repo';
import { orderReasons } from '../../../tracking/risk/risk-signals';
import { html, type Html } from '../html';
import { appPage } from '../layout';

/** At most this many rows on the page; the CSV has every one. */
export const INVALID_CLICKS_PAGE_ROWS = 200;

/** GET /invalid-clicks: invalid clicks by IP and campaign, the CSV, and the push of the blocklist to Google Ads. */
export function invalidClicksPage(input: { rows: readonly InvalidIpRow[]; names: ReadonlyMap<string, string>; days: number; threshold: number; connected: boolean }): Html {
  const body = input.rows.map(
    (row) => html`<tr><td class="mono">${row.ip}</td><td>${orderReasons(row.reasons ?? []).join(', ')}</td><td class="num">${Number(row.score)}</td>
<td class="mono">${row.gclid ?? '—'}</td><td>${row.campaign_id === '' ? '—' : (input.names.get(row.campaign_id) ?? row.campaign_id)}</td>
<td class="num">${Number(row.clicks)}</td><td>${new Date(row.last_seen).toISOString().slice(0, 16).replace('T', ' ')}</td></tr>`,
  );
  return appPage(
    { title: 'Invalid clicks', current: '/invalid-clicks' },
    html`<form class="actions panel" method="get" action="/invalid-clicks" aria-label="Report window">
<div class="field"><label for="invalid-days">Days</label><input id="invalid-days" name="days" type="number" min="1" max="365" value="${input.days}" required></div>
<button type="submit">Show</button>
<a href="/api/protect/export?days=${input.days}" download>Download CSV</a>
</form>
<div class="panel">
<h2>Google Ads exclusions</h2>
${input.connected
  ? html`<p class="muted small">Pushes the blocklist as negative IP criteria to every active campaign, at most 500 per campaign.</p>
<div class="actions"><button type="button" data-api="/api/protect/sync" data-method="POST" data-success="show-json" data-result="sync-result" data-error="sync-error">Sync now</button></div>
<p class="error" id="sync-error" role="alert" hidden></p>
<div data-result-box hidden><pre class="result" id="sync-result" tabindex="0" aria-live="polite"></pre></div>`
  : html`<p class="muted">Connect Google Ads in <a href="/settings">Settings</a> to push these addresses as exclusions.</p>`}
</div>
<div class="panel">
<h2>Clicks scoring ${input.threshold} or more, last ${input.days} days</h2>
${input.rows.length === 0
  ? html`<p class="muted">No invalid clicks in this window.</p>`
  : html`<div class="table-box"><table>
<thead><tr><th scope="col">IP</th><th scope="col">Reasons</th><th scope="col" class="num">Score</th><th scope="col">Latest gclid</th><th scope="col">Campaign</th><th scope="col" class="num">Clicks</th><th scope="col">Last seen (UTC)</th></tr></thead>
<tbody>${body}</tbody></table></div>
${input.rows.length >= INVALID_CLICKS_PAGE_ROWS ? html`<p class="muted small">The first ${INVALID_CLICKS_PAGE_ROWS} by IP; the CSV has them all.</p>` : ''}`}
</div>`,
  );
}
