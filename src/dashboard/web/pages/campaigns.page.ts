import type { PivotReport } from '../../../analytics/pivot';
import { html, jsonBlock, type Html } from '../html';
import { appPage } from '../layout';

const money = (value: number) => value.toFixed(2);
const ratio = (value: number | null, digits: number) => (value === null ? '—' : value.toFixed(digits));

/** GET /campaigns: the pivot by day and campaign, spend against revenue, CPI and ROAS by day, and the CSV. */
export function campaignsPage(report: PivotReport, window: { from: string; to: string }, notice: string | null = null): Html {
  const { rows } = report;
  const apart = (sums: Record<string, number>) => Object.entries(sums).map(([currency, sum]) => `${sum} ${currency}`).join(', ');
  const unconverted = [
    Object.keys(report.unconverted).length > 0 ? `revenue ${apart(report.unconverted)}` : '',
    Object.keys(report.unconverted_spend).length > 0 ? `spend ${apart(report.unconverted_spend)}` : '',
  ].filter(Boolean).join('; ');
  const totals = rows.reduce((sum, row) => ({ spend: sum.spend + row.spend, revenue: sum.revenue + row.revenue, installs: sum.installs + row.installs }), { spend: 0, revenue: 0, installs: 0 });
  const body = rows.map(
    (row) => html`<tr><td>${row.day}</td><td>${row.campaign ?? (row.campaign_id ? row.campaign_id : html`<span class="muted">no campaign</span>`)}</td>
<td class="num">${row.clicks}</td><td class="num">${row.installs}</td><td class="num">${row.conversions}</td><td class="num">${money(row.revenue)}</td>
<td class="num">${money(row.spend)}</td><td class="num">${ratio(row.cpi, 2)}</td><td class="num">${ratio(row.roas, 2)}</td></tr>`,
  );
  const csv = `/api/dashboard/export?type=pivot&from=${window.from}&to=${window.to}`;
  return appPage(
    { title: 'Campaigns', current: '/campaigns', charts: true },
    html`${notice ? html`<p class="error" role="alert">${notice}</p>` : ''}<form class="actions panel" method="get" action="/campaigns" aria-label="Report window">
<div class="field"><label for="window-from">From</label><input id="window-from" name="from" type="date" value="${window.from}" required></div>
<div class="field"><label for="window-to">To</label><input id="window-to" name="to" type="date" value="${window.to}" required></div>
<button type="submit">Show</button>
<a href="${csv}" download>Download CSV</a>
</form>
<div class="panel">
<h2>Spend, revenue, CPI and ROAS by day</h2>
<p class="muted small">Spend ${money(totals.spend)} · revenue ${money(totals.revenue)} · ROAS ${ratio(totals.spend > 0 && unconverted === '' ? totals.revenue / totals.spend : null, 2)} · CPI ${ratio(totals.installs > 0 && Object.keys(report.unconverted_spend).length === 0 ? totals.spend / totals.installs : null, 2)} (days in ${report.timezone}, amounts in ${report.currency}, ${window.from} to ${window.to})</p>
${unconverted ? html`<p class="small" role="note">Left out for want of an exchange rate: ${unconverted}.</p>` : ''}
<div id="pivot-chart" class="chart" role="img" aria-label="Spend and revenue per day, with CPI and ROAS"></div>
</div>
<div class="panel">
<h2>By day and campaign</h2>
${rows.length === 0
  ? html`<p class="muted">Nothing in this window.</p>`
  : html`<div class="table-box"><table>
<thead><tr><th scope="col">Day</th><th scope="col">Campaign</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Installs</th><th scope="col" class="num">Conversions</th>
<th scope="col" class="num">Revenue</th><th scope="col" class="num">Spend</th><th scope="col" class="num">CPI</th><th scope="col" class="num">ROAS</th></tr></thead>
<tbody>${body}</tbody></table></div>`}
</div>
${jsonBlock('pivot-data', { from: window.from, to: window.to, rows })}`,
  );
}
