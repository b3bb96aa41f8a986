import type { BreakdownAnswer, BreakdownRow } from '../../../analytics/breakdown/breakdown.model';
import { html, type Html } from '../html';
import { barChart } from '../svg-chart';

/** The breakdown report on the campaigns page (docs/reports.md, "Breakdowns"): installs and revenue by group as bars, and the table. */
const money = (value: number) => value.toFixed(2);
const ratio = (value: number | null, digits = 2) => (value === null ? '—' : value.toFixed(digits));

/** A row's name: the grouped dimensions' keys, a campaign's name and a link's slug before their ids. */
export function breakdownLabel(row: BreakdownRow, groupBy: readonly string[]): string {
  const part = (dimension: string): string => {
    switch (dimension) {
      case 'day': return row.day ?? '—';
      case 'campaign': return (row.campaign ?? row.campaign_id ?? 'no campaign') as string;
      case 'link': return (row.link ?? row.link_id ?? 'no link') as string;
      default: return (row[dimension as keyof BreakdownRow] as string | null | undefined) ?? 'unknown';
    }
  };
  return groupBy.map(part).join(' · ');
}

export function breakdownPanel(report: BreakdownAnswer, csv: string): Html {
  const labels = report.rows.map((row) => breakdownLabel(row, report.group_by));
  const rows = report.rows.map(
    (row, index) => html`<tr><th scope="row">${labels[index]}</th><td class="num">${row.clicks}</td><td class="num">${row.installs}</td><td class="num">${row.conversions}</td>
<td class="num">${money(row.revenue)}</td><td class="num">${money(row.spend)}</td><td class="num">${ratio(row.cpi)}</td><td class="num">${ratio(row.roas)}</td><td class="num">${ratio(row.cvr === null ? null : row.cvr * 100, 1)}</td></tr>`,
  );
  const { total } = report;
  const bars = (measure: 'installs' | 'revenue') => report.rows.map((row, index) => ({ label: labels[index]!, value: row[measure] }));
  return html`<section class="panel" aria-labelledby="breakdown-title">
<h2 id="breakdown-title">Breakdown by ${report.group_by.join(' and ')}</h2>
<p class="muted small">${report.from} to ${report.to} (${report.timezone}), amounts in ${report.currency}. <a href="${csv}" download>Download the breakdown CSV</a></p>
${report.rows.length === 0
  ? html`<p class="muted">Nothing in this window.</p>`
  : html`<div class="row">
<div class="chart-box"><h3>Installs</h3>${barChart({ title: `Installs by ${report.group_by.join(' and ')}`, bars: bars('installs'), format: String })}</div>
<div class="chart-box"><h3>Revenue</h3>${barChart({ title: `Revenue by ${report.group_by.join(' and ')}`, bars: bars('revenue'), format: money })}</div>
</div>
<div class="table-box"><table>
<thead><tr><th scope="col">${report.group_by.join(' · ')}</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Installs</th><th scope="col" class="num">Conversions</th>
<th scope="col" class="num">Revenue</th><th scope="col" class="num">Spend</th><th scope="col" class="num">CPI</th><th scope="col" class="num">ROAS</th><th scope="col" class="num">CVR %</th></tr></thead>
<tbody>${rows}<tr class="total"><th scope="row">Total</th><td class="num">${total.clicks}</td><td class="num">${total.installs}</td><td class="num">${total.conversions}</td>
<td class="num">${money(total.revenue)}</td><td class="num">${money(total.spend)}</td><td class="num">${ratio(total.cpi)}</td><td class="num">${ratio(total.roas)}</td><td class="num">${ratio(total.cvr === null ? null : total.cvr * 100, 1)}</td></tr></tbody>
</table></div>`}
</section>`;
}
