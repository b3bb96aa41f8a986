import type { LinkStatsAnswer, LinkStatsBreakdown, LinkStatsRoute } from '../../../analytics/link-stats/link-stats.model';
import { html, type Html } from '../html';
import { lineChart } from '../svg-chart';

/**
 * The link page's analytics (docs/dashboard.md, "Link page"): totals, clicks by day and by hour
 * (a chart, and the table it pictures), the breakdowns, the smart-link decisions and what the
 * clicks led to. Every number is in a table; the charts only draw them.
 */

const count = (value: number) => String(Math.round(value));
const plural = (value: number, noun: string) => `${count(value)} ${noun}${value === 1 ? '' : 's'}`;

/** A label on every `every`-th position and the last, so 30 or 48 labels never overlap. */
const sparse = (labels: readonly string[], every: number) => labels.map((label, index) => (index % every === 0 || index === labels.length - 1 ? label : ''));

function breakdownTable(id: string, caption: string, breakdown: LinkStatsBreakdown, unknown: string): Html {
  if (breakdown.rows.length === 0) return html`<div class="panel"><h3>${caption}</h3><p class="muted small">No clicks in these 30 days.</p></div>`;
  return html`<div class="panel"><div class="table-box"><table id="${id}">
<caption>${caption}</caption>
<thead><tr><th scope="col">${caption.replace(/^By /, '').replace(/^./, (first) => first.toUpperCase())}</th><th scope="col" class="num">Clicks</th></tr></thead>
<tbody>${breakdown.rows.map((row) => html`<tr><td class="${row.key === null ? 'muted' : 'mono'}">${row.key ?? unknown}</td><td class="num">${count(row.clicks)}</td></tr>`)}
${breakdown.other > 0 ? html`<tr><td class="muted">Others</td><td class="num">${count(breakdown.other)}</td></tr>` : ''}</tbody>
</table></div></div>`;
}

/** A smart-link decision in words, as the route test names it. */
export function routeInWords(route: Pick<LinkStatsRoute, 'rule_index' | 'rule_name' | 'action' | 'variant_index'>): string {
  const variant = route.variant_index === null ? '' : `, variant ${route.variant_index + 1}`;
  if (route.rule_index !== null) return `Rule ${route.rule_index + 1}${route.rule_name ? ` “${route.rule_name}”` : ''}${route.action ? ` (${route.action.replace('_', ' ')}${variant})` : ''}`;
  if (route.action === 'fallback') return 'No rule matched: the rules’ fallback';
  if (route.action === 'destination') return 'No rule matched: the link’s destination';
  return route.action ?? 'Unknown';
}

function routesTable(stats: LinkStatsAnswer): Html {
  const total = stats.routes.reduce((sum, route) => sum + route.clicks, 0);
  return html`<div class="panel"><h2>Smart-link decisions</h2>
${stats.routes.length === 0
  ? html`<p class="muted small">No visits routed by the rules in these 30 days.</p>`
  : html`<div class="table-box"><table id="link-routes">
<caption class="muted small">Which rule took how many visits (a visit whose own url overrode the rules is not counted here)</caption>
<thead><tr><th scope="col">Decision</th><th scope="col" class="num">Visits</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>${stats.routes.map((route) => html`<tr><td>${routeInWords(route)}</td><td class="num">${count(route.clicks)}</td><td class="num">${total > 0 ? `${((route.clicks / total) * 100).toFixed(1)}%` : '—'}</td></tr>`)}</tbody>
</table></div>`}
</div>`;
}

function outcomes(stats: LinkStatsAnswer): Html {
  return html`<div class="panel"><h2>Installs and conversions</h2>
<p>${plural(stats.totals.installs, 'install')} and ${plural(stats.totals.conversions, 'conversion')} from this link’s clicks, in these 30 days.</p>
${stats.conversions.length === 0
  ? ''
  : html`<div class="table-box"><table id="link-conversions">
<caption class="muted small">Conversions by event; values as sent, in their own currency</caption>
<thead><tr><th scope="col">Event</th><th scope="col" class="num">Conversions</th><th scope="col" class="num">Value</th><th scope="col">Currency</th></tr></thead>
<tbody>${stats.conversions.map((row) => html`<tr><td class="mono">${row.event_name}</td><td class="num">${count(row.conversions)}</td><td class="num">${row.value}</td><td>${row.currency ?? '—'}</td></tr>`)}</tbody>
</table></div>`}
</div>`;
}

/** The analytics sections of GET /links/{id}, from one GET /api/dashboard/links/{id}/analytics answer. */
export function linkAnalytics(stats: LinkStatsAnswer, kind: 'tracking' | 'smart'): Html {
  const totals: [string, number][] = [
    ['Clicks, 30 days', stats.totals.clicks],
    ['Clicks, 48 hours', stats.totals.clicks_48h],
    ['Installs, 30 days', stats.totals.installs],
    ['Conversions, 30 days', stats.totals.conversions],
  ];
  return html`<section aria-labelledby="link-analytics-title">
<h2 id="link-analytics-title">Analytics</h2>
<p class="muted small">${stats.from} to ${stats.to}, in ${stats.timezone} (the organization’s reporting time zone). Bots and blocked clicks are not counted.</p>
<dl class="counters link-totals">
${totals.map(([label, value], index) => html`<div><dt id="link-total-${index}">${label}</dt><dd aria-labelledby="link-total-${index}">${count(value)}</dd></div>`)}
</dl>
<div class="row">
<div class="panel"><h3>Clicks by day</h3>
${lineChart({
  title: 'Clicks, installs and conversions by day, last 30 days',
  xLabels: sparse(stats.days.map((day) => day.day.slice(5)), 5),
  series: [
    { label: 'Clicks', values: stats.days.map((day) => day.clicks) },
    { label: 'Installs', values: stats.days.map((day) => day.installs) },
    { label: 'Conversions', values: stats.days.map((day) => day.conversions) },
  ],
  format: count,
})}
<details><summary>The numbers by day</summary><div class="table-box"><table id="link-days">
<caption class="muted small">Newest first</caption>
<thead><tr><th scope="col">Day</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Installs</th><th scope="col" class="num">Conversions</th></tr></thead>
<tbody>${[...stats.days].reverse().map((day) => html`<tr><th scope="row">${day.day}</th><td class="num">${count(day.clicks)}</td><td class="num">${count(day.installs)}</td><td class="num">${count(day.conversions)}</td></tr>`)}</tbody>
</table></div></details>
</div>
<div class="panel"><h3>Clicks by hour</h3>
${lineChart({
  title: 'Clicks by hour, last 48 hours',
  xLabels: sparse(stats.hours.map((hour) => hour.hour.slice(11)), 8),
  series: [{ label: 'Clicks', values: stats.hours.map((hour) => hour.clicks) }],
  format: count,
})}
<details><summary>The numbers by hour</summary><div class="table-box"><table id="link-hours">
<caption class="muted small">Newest first, local time</caption>
<thead><tr><th scope="col">Hour</th><th scope="col" class="num">Clicks</th></tr></thead>
<tbody>${[...stats.hours].reverse().map((hour) => html`<tr><th scope="row">${hour.hour.replace('T', ' ')}</th><td class="num">${count(hour.clicks)}</td></tr>`)}</tbody>
</table></div></details>
</div>
</div>
<div class="row link-breakdowns">
${breakdownTable('link-countries', 'By country', stats.countries, 'Unknown')}
${breakdownTable('link-os', 'By operating system', stats.os, 'Unknown')}
${breakdownTable('link-devices', 'By device', stats.devices, 'Unknown')}
</div>
<div class="row link-breakdowns">
${breakdownTable('link-referrers', 'By referrer host', stats.referrers, 'None (direct)')}
${breakdownTable('link-landing', 'By landing URL', stats.landing_urls, 'Unknown')}
</div>
<div class="row">
${outcomes(stats)}
${kind === 'smart' ? routesTable(stats) : ''}
</div>
</section>`;
}
