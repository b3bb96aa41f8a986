import type { CohortReport, CohortRow } from '../../../analytics/cohorts/cohorts.model';
import { html, type Html } from '../html';
import { lineChart, MAX_SERIES } from '../svg-chart';

/**
 * The cohort report on the campaigns page (docs/reports.md, "Cohorts"): retention and ROAS curves
 * by cohort day, and the retention heat map. Each cell holds its numbers as text; the shade
 * (`heat-0` to `heat-5`) only repeats them.
 */
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/** Shade bands of retention: none, under 10 %, under 20 %, under 40 %, under 60 %, and 60 % or more. */
export function heatClass(retention: number): string {
  if (retention <= 0) return 'heat-0';
  return `heat-${1 + [0.1, 0.2, 0.4, 0.6].filter((bound) => retention >= bound).length}`;
}

/** A row's name: its group's keys, names before ids. */
export function cohortLabel(row: CohortRow, groupBy: readonly string[]): string {
  const part = (group: string): string => {
    switch (group) {
      case 'day': return row.day ?? '—';
      case 'campaign': return row.campaign ?? row.campaign_id ?? 'no campaign';
      case 'app': return row.app ?? row.app_id ?? 'no app';
      default: return (row[group as keyof CohortRow] as string | null | undefined) ?? 'unknown';
    }
  };
  return groupBy.map(part).join(' · ');
}

function heatCell(day: CohortRow['days'][number]): Html {
  if (day.retention === null || day.installs === null) return html`<td class="num heat-none"><span aria-hidden="true">—</span><span class="visually-hidden">not reached</span></td>`;
  return html`<td class="num ${heatClass(day.retention)}">${percent(day.retention)}<span class="cell-detail">${day.retained}/${day.installs}</span></td>`;
}

export function cohortPanel(report: CohortReport, csv: string): Html {
  const labels = report.rows.map((row) => cohortLabel(row, report.group_by));
  const xLabels = report.days.map((day) => `day ${day}`);
  const curves = (measure: 'retention' | 'roas') => [
    ...report.rows.slice(0, MAX_SERIES - 1).map((row, index) => ({ label: labels[index]!, values: row.days.map((day) => day[measure]) })),
    { label: 'All cohorts', values: report.total.days.map((day) => day[measure]) },
  ];
  const hasRoas = report.total.days.some((day) => day.roas !== null);
  const head = html`<tr><th scope="col">Cohort</th><th scope="col" class="num">Installs</th>${report.days.map((day) => html`<th scope="col" class="num">Day ${day}</th>`)}</tr>`;
  const rows = report.rows.map(
    (row, index) => html`<tr><th scope="row">${labels[index]}</th><td class="num">${row.installs}</td>${row.days.map(heatCell)}</tr>`,
  );
  const total = html`<tr class="total"><th scope="row">All cohorts</th><td class="num">${report.total.installs}</td>${report.total.days.map(heatCell)}</tr>`;
  return html`<section class="panel" aria-labelledby="cohorts-title">
<h2 id="cohorts-title">Cohorts: retention and ROAS by cohort day</h2>
<p class="muted small">Installs of each install day from ${report.from} to ${report.to} (${report.timezone}), followed day by day; revenue in ${report.currency}. <a href="${csv}" download>Download the cohorts CSV</a></p>
${report.rows.length === 0
  ? html`<p class="muted">No installs in this window.</p>`
  : html`<div class="row">
<div class="chart-box"><h3>Retention</h3>${lineChart({ title: 'Retention by cohort day, per cohort', xLabels, series: curves('retention'), format: percent })}</div>
<div class="chart-box"><h3>ROAS</h3>${hasRoas
    ? lineChart({ title: 'Return on ad spend by cohort day, per cohort', xLabels, series: curves('roas'), format: (value) => value.toFixed(2) })
    : html`<p class="muted small">No spend imported for these cohorts, so no ROAS.</p>`}</div>
</div>
<h3 id="heatmap-title">Retention heat map</h3>
<p class="muted small">Share of each cohort's installs active on the day, with active / installs; darker is higher, “—” is a day not reached yet.</p>
<div class="table-box"><table class="heatmap" aria-labelledby="heatmap-title"><thead>${head}</thead><tbody>${rows}${total}</tbody></table></div>`}
</section>`;
}
