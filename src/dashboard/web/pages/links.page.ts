import type { CampaignResponse } from '../../../campaigns/campaigns.model';
import type { Page } from '../../../http/pagination';
import type { LinkResponse } from '../../../links/links.model';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { pager } from '../pager';

function statusButton(link: LinkResponse): Html {
  const next = link.status === 'active' ? 'paused' : 'active';
  return html`<button type="button" class="secondary" data-api="/api/dashboard/links/${link.id}" data-method="PATCH" data-body="${JSON.stringify({ status: next })}" data-error="link-error-${link.id}"
 aria-label="${link.status === 'active' ? 'Pause' : 'Resume'} ${link.slug}">${link.status === 'active' ? 'Pause' : 'Resume'}</button>`;
}

/** GET /links: create a link; a page of the organization's links with pause, resume and the rules editor. */
export function linksPage(page: Page<LinkResponse>, campaigns: readonly CampaignResponse[], where: { first: boolean }): Html {
  const links = page.data;
  const campaignNames = new Map(campaigns.map((campaign) => [campaign.id, campaign.name]));
  const rows = links.map(
    (link) => html`<tr>
<td><a href="/links/${link.id}">${link.slug}</a></td>
<td>${link.kind}</td>
<td><span class="badge ${link.status}">${link.status}</span></td>
<td><code>${link.url}</code></td>
<td class="mono">${link.destination ?? '—'}</td>
<td>${link.campaign_id ? (campaignNames.get(link.campaign_id) ?? link.campaign_id) : '—'}</td>
<td><div class="actions">${statusButton(link)}<a href="/links/${link.id}">${link.kind === 'smart' ? 'Edit rules' : 'Edit'}</a></div><p class="error" id="link-error-${link.id}" role="alert" hidden></p></td>
</tr>`,
  );
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
${links.length === 0
  ? html`<p class="muted">${where.first ? 'No links yet.' : 'No more links.'}</p>`
  : html`<div class="table-box"><table>
<caption class="muted small">Newest first</caption>
<thead><tr><th scope="col">Slug</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">URL</th><th scope="col">Destination</th><th scope="col">Campaign</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`}
${pager('/links', { next_cursor: page.next_cursor, first: where.first, shown: links.length })}
</div>`,
  );
}
