import type { BreakdownAnswer, BreakdownRow } from '../../../analytics/breakdown/breakdown.model';
import type { CohortReport } from '../../../analytics/cohorts/cohorts.model';
import type { PivotReport } from '../../../analytics/pivot';
import type { CampaignResponse } from '../../../campaigns/campaigns.model';
import { apiForm, field } from '../forms';
import { html, jsonBlock, type Html } from '../html';
import { appPage } from '../layout';
import { breakdownPanel } from './breakdown-view';
import { cohortPanel } from './cohort-view';

const money = (value: number) => value.toFixed(2);
const ratio = (value: number | null, digits: number) => (value === null ? '—' : value.toFixed(digits));

/** The report filters of the page, as the URL has them (empty: not filtered). */
export interface CampaignFilters {
  from: string;
  to: string;
  campaign_id: string;
  partner: string;
  country: string;
  platform: string;
  group_by: string;
  cohort_by: string;
}

export interface CampaignsPageInput {
  filters: CampaignFilters;
  /** Errors of the filters, by field, shown beside them. */
  errors: Record<string, string>;
  /** The window was not valid and the default is shown. */
  notice: string | null;
  campaigns: readonly CampaignResponse[];
  apps: readonly { id: string; name: string }[];
  /** Each campaign's figures over the window (breakdown by campaign); null when the filters are not valid. */
  totals: BreakdownAnswer | null;
  breakdown: BreakdownAnswer | null;
  cohorts: CohortReport | null;
  pivot: PivotReport;
  partners: readonly string[];
  platforms: readonly string[];
  dimensions: readonly string[];
  cohortGroups: readonly string[];
}

const query = (params: Record<string, string>) =>
  new URLSearchParams(Object.entries(params).filter(([, value]) => value !== '')).toString();

function filtersForm(input: CampaignsPageInput): Html {
  const { filters, errors } = input;
  const f = (options: Parameters<typeof field>[1]) => field('report', { ...options, value: filters[options.name as keyof CampaignFilters], error: errors[options.name] ?? null });
  const any = (label: string) => ['', label] as const;
  return html`<form class="panel filters" method="get" action="/campaigns" aria-label="Report filters">
<div class="filter-grid">
${f({ name: 'from', label: 'From', type: 'date', required: true })}
${f({ name: 'to', label: 'To', type: 'date', required: true })}
${f({ name: 'campaign_id', label: 'Campaign', options: [any('Any campaign'), ...input.campaigns.map((c) => [c.id, c.name] as const)] })}
${f({ name: 'partner', label: 'Partner', options: [any('Any partner'), ...input.partners.map((p) => [p, p] as const)] })}
${f({ name: 'country', label: 'Country', hint: 'Two letters, such as DE', placeholder: 'DE' })}
${f({ name: 'platform', label: 'Platform', options: [any('Any platform'), ...input.platforms.map((p) => [p, p] as const)] })}
${f({ name: 'group_by', label: 'Break down by', options: input.dimensions.map((d) => [d, d] as const) })}
${f({ name: 'cohort_by', label: 'Cohorts by', options: input.cohortGroups.map((g) => [g, g === 'day' ? 'install day' : g] as const) })}
</div>
<div class="actions"><button type="submit">Show</button></div>
</form>`;
}

function campaignRows(campaigns: readonly CampaignResponse[], input: CampaignsPageInput): Html {
  const apps = new Map(input.apps.map((app) => [app.id, app.name]));
  const figures = new Map<string | null, BreakdownRow>((input.totals?.rows ?? []).map((row) => [(row.campaign_id as string | null | undefined) ?? null, row]));
  return html`<div class="table-box"><table>
<thead><tr><th scope="col">Name</th><th scope="col">External id</th><th scope="col">Partner</th><th scope="col">App</th><th scope="col">Status</th>
<th scope="col" class="num">Clicks</th><th scope="col" class="num">Installs</th><th scope="col" class="num">Revenue</th><th scope="col" class="num">Spend</th><th scope="col" class="num">ROAS</th></tr></thead>
<tbody>${campaigns.map((campaign) => {
  const row = figures.get(campaign.id);
  return html`<tr>
<th scope="row"><a href="/campaigns/${campaign.id}">${campaign.name}</a></th>
<td>${campaign.external_id ? html`<code>${campaign.external_id}</code>` : html`<span class="muted">—</span>`}</td>
<td>${campaign.partner ?? html`<span class="muted">—</span>`}</td>
<td>${campaign.app_id ? (apps.get(campaign.app_id) ?? campaign.app_id) : html`<span class="muted">—</span>`}</td>
<td><span class="badge ${campaign.status}">${campaign.status}</span></td>
<td class="num">${row?.clicks ?? 0}</td><td class="num">${row?.installs ?? 0}</td><td class="num">${money(row?.revenue ?? 0)}</td><td class="num">${money(row?.spend ?? 0)}</td><td class="num">${ratio(row?.roas ?? null, 2)}</td>
</tr>`;
})}</tbody></table></div>`;
}

function campaignsPanel(input: CampaignsPageInput): Html {
  const active = input.campaigns.filter((campaign) => campaign.status !== 'archived');
  const archived = input.campaigns.filter((campaign) => campaign.status === 'archived');
  return html`<section class="panel" aria-labelledby="campaigns-title">
<h2 id="campaigns-title">Campaigns</h2>
<p class="muted small">Totals from ${input.filters.from} to ${input.filters.to}${input.totals ? html` (${input.totals.timezone}, amounts in ${input.totals.currency})` : ''}.</p>
${active.length === 0 ? html`<p class="muted">No active campaigns yet.</p>` : campaignRows(active, input)}
${archived.length > 0 ? html`<details><summary>Archived campaigns (${archived.length})</summary>${campaignRows(archived, input)}</details>` : ''}
<details><summary>New campaign</summary>
${apiForm({ id: 'new-campaign', api: '/api/dashboard/campaigns', submit: 'Create campaign', success: 'reload' }, campaignFields('new-campaign', null, input.apps))}
</details>
</section>`;
}

/** The fields of a campaign, empty for a new one; an empty optional field is sent as null. */
export function campaignFields(form: string, campaign: CampaignResponse | null, apps: readonly { id: string; name: string }[]): Html[] {
  return [
    field(form, { name: 'name', label: 'Name', value: campaign?.name, required: true, hint: '1 to 200 characters.' }),
    field(form, { name: 'external_id', label: 'External id', value: campaign?.external_id, emptyIsNull: true, hint: "The ad platform's campaign id (what {campaignid} expands to); unique in the organization." }),
    field(form, { name: 'partner', label: 'Partner', value: campaign?.partner, emptyIsNull: true, placeholder: 'google_ads', hint: 'The media source: google_ads, meta, tiktok, or any name. Reports group by it.' }),
    field(form, { name: 'app_id', label: 'App', value: campaign?.app_id ?? '', emptyIsNull: true, options: [['', 'No app'], ...apps.map((app) => [app.id, app.name] as const)] }),
  ];
}

/** GET /campaigns: the campaigns with their totals, new campaign, the breakdown, the cohorts, and the pivot by day. */
export function campaignsPage(input: CampaignsPageInput): Html {
  const { pivot, filters } = input;
  const reportQuery = { from: filters.from, to: filters.to, campaign_id: filters.campaign_id, partner: filters.partner, country: filters.country, platform: filters.platform };
  const apart = (sums: Record<string, number>) => Object.entries(sums).map(([currency, sum]) => `${sum} ${currency}`).join(', ');
  const unconverted = [
    Object.keys(pivot.unconverted).length > 0 ? `revenue ${apart(pivot.unconverted)}` : '',
    Object.keys(pivot.unconverted_spend).length > 0 ? `spend ${apart(pivot.unconverted_spend)}` : '',
  ].filter(Boolean).join('; ');
  const totals = pivot.rows.reduce((sum, row) => ({ spend: sum.spend + row.spend, revenue: sum.revenue + row.revenue, installs: sum.installs + row.installs }), { spend: 0, revenue: 0, installs: 0 });
  const body = pivot.rows.map(
    (row) => html`<tr><td>${row.day}</td><td>${row.campaign ?? (row.campaign_id ? row.campaign_id : html`<span class="muted">no campaign</span>`)}</td>
<td class="num">${row.clicks}</td><td class="num">${row.installs}</td><td class="num">${row.conversions}</td><td class="num">${money(row.revenue)}</td>
<td class="num">${money(row.spend)}</td><td class="num">${ratio(row.cpi, 2)}</td><td class="num">${ratio(row.roas, 2)}</td></tr>`,
  );
  const csv = `/api/dashboard/export?type=pivot&from=${filters.from}&to=${filters.to}`;
  const invalid = Object.keys(input.errors).length > 0;
  return appPage(
    { title: 'Campaigns', current: '/campaigns', charts: true },
    html`${input.notice ? html`<p class="error" role="alert">${input.notice}</p>` : ''}${invalid ? html`<p class="error" role="alert">Some filters are not valid: see beside them.</p>` : ''}
${filtersForm(input)}
${campaignsPanel(input)}
${input.breakdown ? breakdownPanel(input.breakdown, `/api/dashboard/export?${query({ type: 'breakdown', ...reportQuery, group_by: filters.group_by })}`) : ''}
${input.cohorts ? cohortPanel(input.cohorts, `/api/dashboard/export?${query({ type: 'cohorts', ...reportQuery, group_by: filters.cohort_by })}`) : ''}
<div class="panel">
<h2>Spend, revenue, CPI and ROAS by day</h2>
<p class="muted small">Spend ${money(totals.spend)} · revenue ${money(totals.revenue)} · ROAS ${ratio(totals.spend > 0 && unconverted === '' ? totals.revenue / totals.spend : null, 2)} · CPI ${ratio(totals.installs > 0 && Object.keys(pivot.unconverted_spend).length === 0 ? totals.spend / totals.installs : null, 2)} (days in ${pivot.timezone}, amounts in ${pivot.currency}, ${filters.from} to ${filters.to}, all campaigns) <a href="${csv}" download>Download CSV</a></p>
${unconverted ? html`<p class="small" role="note">Left out for want of an exchange rate: ${unconverted}.</p>` : ''}
<div id="pivot-chart" class="chart" role="img" aria-label="Spend and revenue per day, with CPI and ROAS"></div>
</div>
<div class="panel">
<h2>By day and campaign</h2>
${pivot.rows.length === 0
  ? html`<p class="muted">Nothing in this window.</p>`
  : html`<div class="table-box"><table>
<thead><tr><th scope="col">Day</th><th scope="col">Campaign</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Installs</th><th scope="col" class="num">Conversions</th>
<th scope="col" class="num">Revenue</th><th scope="col" class="num">Spend</th><th scope="col" class="num">CPI</th><th scope="col" class="num">ROAS</th></tr></thead>
<tbody>${body}</tbody></table></div>`}
</div>
${jsonBlock('pivot-data', { from: filters.from, to: filters.to, rows: pivot.rows })}`,
  );
}
