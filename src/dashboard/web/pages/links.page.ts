import type { LinkClickCounts } from '../../../analytics/link-clicks.repo';
import type { CampaignResponse } from '../../../campaigns/campaigns.model';
import type { Page } from '../../../http/pagination';
import type { LinkKind, LinkResponse, LinkSort, LinkStatus } from '../../../links/links.model';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { pager } from '../pager';

/** The list's search, filters and order as the URL and the filter form carry them; '' is "any". */
export interface LinksPageFilters {
  q: string;
  kind: LinkKind | '';
  status: LinkStatus | '';
  campaign_id: string;
  domain: string;
  sort: LinkSort;
}

export interface LinksPageInput {
  page: Page<LinkResponse>;
  campaigns: readonly CampaignResponse[];
  /** Hostnames the organization's links are on, the tracking host's among them. */
  domains: readonly string[];
  clicks: ReadonlyMap<string, LinkClickCounts>;
  filters: LinksPageFilters;
  first: boolean;
}

const SORT_LABELS: Record<LinkSort, string> = { '-created_at': 'Newest first', created_at: 'Oldest first', slug: 'Slug, A to Z', '-slug': 'Slug, Z to A' };
const COPY_STATUS = 'copy-status';

function statusButton(link: LinkResponse): Html {
  const next = link.status === 'active' ? 'paused' : 'active';
  return html`<button type="button" class="secondary" data-api="/api/dashboard/links/${link.id}" data-method="PATCH" data-body="${JSON.stringify({ status: next })}" data-error="link-error-${link.id}"
 aria-label="${link.status === 'active' ? 'Pause' : 'Resume'} ${link.slug}">${link.status === 'active' ? 'Pause' : 'Resume'}</button>`;
}

function filtersForm({ filters, campaigns, domains }: LinksPageInput): Html {
  const f = (options: Parameters<typeof field>[1]) => field('links-filter', { ...options, value: filters[options.name as keyof LinksPageFilters] });
  const filtered = filters.q || filters.kind || filters.status || filters.campaign_id || filters.domain || filters.sort !== '-created_at';
  return html`<form class="filters" method="get" action="/links" role="search" aria-label="Search and filter links">
<div class="filter-grid">
${f({ name: 'q', label: 'Search', type: 'search', hint: 'Slug, destination, preview title or campaign name' })}
${f({ name: 'kind', label: 'Kind', options: [['', 'Any kind'], ['tracking', 'Tracking'], ['smart', 'Smart']] })}
${f({ name: 'status', label: 'Status', options: [['', 'Any status'], ['active', 'Active'], ['paused', 'Paused']] })}
${f({ name: 'campaign_id', label: 'Campaign', options: [['', 'Any campaign'], ...campaigns.map((campaign) => [campaign.id, campaign.name] as const)] })}
${f({ name: 'domain', label: 'Domain', options: [['', 'Any domain'], ...domains.map((domain) => [domain, domain] as const)] })}
${f({ name: 'sort', label: 'Order', options: Object.entries(SORT_LABELS) })}
</div>
<div class="actions"><button type="submit">Show</button>${filtered ? html`<a href="/links">Clear</a>` : ''}</div>
</form>`;
}

function linkRow(link: LinkResponse, input: LinksPageInput, campaignNames: ReadonlyMap<string, string>): Html {
  const clicks = input.clicks.get(link.id) ?? { last24h: 0, last30d: 0 };
  const qr = (format: 'svg' | 'png') => html`<a href="/links/${link.id}/qr.${format}" download="${link.slug}-qr.${format}" aria-label="QR code of ${link.slug} as ${format.toUpperCase()}">${format.toUpperCase()}</a>`;
  return html`<tr>
<td><a href="/links/${link.id}">${link.slug}</a></td>
<td><div class="short-url"><code>${link.url}</code><button type="button" class="secondary" data-copy="${link.url}" data-status="${COPY_STATUS}" aria-label="Copy the short URL of ${link.slug}">Copy</button></div></td>
<td>${link.kind}</td>
<td><span class="badge ${link.status}">${link.status}</span></td>
<td class="mono">${link.destination ?? '—'}</td>
<td>${link.campaign_id ? (campaignNames.get(link.campaign_id) ?? link.campaign_id) : '—'}</td>
<td class="num">${clicks.last24h}</td>
<td class="num">${clicks.last30d}</td>
<td><div class="qr-links">${qr('svg')}${qr('png')}</div></td>
<td><div class="actions">${statusButton(link)}<a href="/links/${link.id}">${link.kind === 'smart' ? 'Edit rules' : 'Edit'}</a></div><p class="error" id="link-error-${link.id}" role="alert" hidden></p></td>
</tr>`;
}

/** GET /links: create a link; search, filter and order the organization's links, a page at a time. */
export function linksPage(input: LinksPageInput): Html {
  const { page, campaigns, filters } = input;
  const links = page.data;
  const campaignNames = new Map(campaigns.map((campaign) => [campaign.id, campaign.name]));
  const { sort, ...narrowing } = filters;
  const searched = Object.values(narrowing).some((value) => value !== '');
  const empty = input.first ? (searched ? 'No link matches.' : 'No links yet.') : 'No more links.';
  return appPage(
    { title: 'Links', current: '/links' },
    html`<div class="panel">
<h2>New link</h2>
${apiForm({ id: 'new-link', api: '/api/dashboard/links', submit: 'Create link', success: 'reload' }, [
  field('new-link', { name: 'kind', label: 'Kind', options: [['tracking', 'Tracking link (/c)'], ['smart', 'Smart link (/l)']], value: 'tracking' }),
  field('new-link', { name: 'destination', label: 'Destination', type: 'url', placeholder: 'https://shop.example.com/landing', hint: 'Where visitors go; for a smart link, where no rule sends them.' }),
  field('new-link', { name: 'slug', label: 'Slug', hint: 'Optional: 1 to 64 of A-Z, a-z, 0-9, _ and -. Generated when empty.' }),
  field('new-link', {
    name: 'campaign_id',
    label: 'Campaign',
    options: [['', 'No campaign'], ...campaigns.map((campaign) => [campaign.id, campaign.name] as const)],
    value: '',
  }),
])}
</div>
<div class="panel">
<h2>Your links</h2>
${filtersForm(input)}
<p class="copy-status muted small" id="${COPY_STATUS}" role="status"></p>
${links.length === 0
  ? html`<p class="muted">${empty}</p>`
  : html`<div class="table-box"><table>
<caption class="muted small">${SORT_LABELS[sort]}; clicks counted as in the reports (bots and blocked visits left out)</caption>
<thead><tr><th scope="col">Slug</th><th scope="col">Short URL</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Destination</th><th scope="col">Campaign</th>
<th scope="col" class="num">Clicks, 24 h</th><th scope="col" class="num">Clicks, 30 days</th><th scope="col">QR code</th><th scope="col">Actions</th></tr></thead>
<tbody>${links.map((link) => linkRow(link, input, campaignNames))}</tbody>
</table></div>`}
${pager('/links', { next_cursor: page.next_cursor, first: input.first, shown: links.length }, { ...filters, sort: sort === '-created_at' ? '' : sort })}
</div>`,
  );
}
