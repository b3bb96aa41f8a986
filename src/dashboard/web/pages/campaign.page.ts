import type { CampaignResponse } from '../../../campaigns/campaigns.model';
import { apiForm } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { campaignFields } from './campaigns.page';

/** GET /campaigns/:id: edit a campaign's name, external id, partner and app; archive or restore it. */
export function campaignPage(campaign: CampaignResponse, apps: readonly { id: string; name: string }[]): Html {
  const archived = campaign.status === 'archived';
  const api = `/api/dashboard/campaigns/${campaign.id}`;
  const reportLink = `/campaigns?${new URLSearchParams({ campaign_id: campaign.id }).toString()}`;
  return appPage(
    { title: `Campaign ${campaign.name}`, current: '/campaigns' },
    html`<p><a href="/campaigns">All campaigns</a> · <a href="${reportLink}">Reports of this campaign</a></p>
<div class="panel">
<h2>Settings</h2>
<p class="muted small">Id <code>${campaign.id}</code> · created ${campaign.created_at.slice(0, 10)} · <span class="badge ${campaign.status}">${campaign.status}</span></p>
${apiForm({ id: 'campaign', api, method: 'PATCH', submit: 'Save', success: 'reload', label: 'Campaign settings', changedOnly: true }, campaignFields('campaign', campaign, apps))}
</div>
<div class="panel">
<h2>${archived ? 'Restore' : 'Archive'}</h2>
<p class="muted small">${archived
  ? 'Restored, the campaign is listed again and its exclusions sync to the ad platform.'
  : 'Archived, the campaign leaves the list and the ad-platform sync; its clicks, installs and reports stay, and its links keep working.'}</p>
<div class="actions"><button type="button" class="${archived ? 'secondary' : 'danger'}" data-api="${api}" data-method="PATCH" data-body="${JSON.stringify({ status: archived ? 'active' : 'archived' })}"${
  archived ? '' : html` data-confirm="Archive ${campaign.name}?"`
} data-error="campaign-status-error">${archived ? 'Restore campaign' : 'Archive campaign'}</button></div>
<p class="error" id="campaign-status-error" role="alert" hidden></p>
</div>`,
  );
}
