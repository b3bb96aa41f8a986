import type { LinkResponse } from '../../../links/links.model';
import { MAX_CLICK_CAP } from '../../../links/links.model';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';

/**
 * The link page's settings beyond destination, status and rules (docs/dashboard.md, "Link page"):
 * each form sends PATCH /api/dashboard/links/{id} with only what the user changed, and the API's
 * field errors land beside the fields they name. A link's campaign is fixed once it is made
 * (docs/links-api.md, "PATCH"), so it is shown, not edited.
 */

function campaignLine(link: LinkResponse, campaignName: string | null): Html {
  if (link.campaign_id === null) return html`<p><strong>Campaign:</strong> none. <span class="muted small">A link's campaign is chosen when it is made and stays fixed: its clicks were counted there.</span></p>`;
  return html`<p><strong>Campaign:</strong> <a href="/campaigns/${link.campaign_id}">${campaignName ?? link.campaign_id}</a> <span class="muted small">(fixed once the link is made: its clicks were counted there)</span></p>`;
}

/** Expiry, click cap, deep link path, custom domain, allowed landing hosts; for a smart link, passing parameters on. */
export function deliverySettings(link: LinkResponse, campaignName: string | null): Html {
  const form = 'link-delivery';
  const smart = link.kind === 'smart';
  const controls = [
    field(form, {
      name: 'expires_at',
      label: 'Expires at',
      value: link.expires_at,
      emptyIsNull: true,
      placeholder: '2026-12-31T23:59:59Z',
      hint: smart
        ? 'ISO 8601 with a zone (Z or +02:00). After it /l answers 410. Empty: never.'
        : 'ISO 8601 with a zone (Z or +02:00). Recorded on the link; /c keeps redirecting (only smart links expire). Empty: never.',
    }),
    field(form, {
      name: 'click_cap',
      label: 'Click cap',
      type: 'number',
      dataType: 'number',
      value: link.click_cap,
      emptyIsNull: true,
      hint: smart ? `Visits allowed over the link's life, 1 to ${MAX_CLICK_CAP}; past it /l answers 410. Empty: no cap.` : `1 to ${MAX_CLICK_CAP}; only smart links enforce it. Empty: no cap.`,
    }),
    field(form, { name: 'deep_link_path', label: 'Deep link path', value: link.deep_link_path, emptyIsNull: true, placeholder: '/product/42', hint: 'The in-app route a deferred deep link opens. Empty: none.' }),
    field(form, {
      name: 'domain',
      label: 'Custom domain',
      value: link.domain,
      emptyIsNull: true,
      placeholder: 'go.example.com',
      hint: link.domain_note ?? 'The hostname the link answers on. Empty: the tracking host.',
    }),
    field(form, {
      name: 'allowed_landing_hosts',
      label: 'Allowed landing hosts',
      rows: 4,
      dataType: 'lines',
      emptyIsNull: true,
      value: link.allowed_landing_hosts?.join('\n') ?? '',
      placeholder: 'shop.example\n*.brand.example',
      hint: 'One a line: hosts a visit’s own url may land on (*.brand.example for its subdomains). Empty: any host.',
    }),
    ...(smart ? [field(form, { name: 'pass_params', label: 'Pass the visit’s query parameters on to the target', type: 'checkbox', checked: link.pass_params })] : []),
  ];
  return html`<div class="panel"><h2>Delivery</h2>
${campaignLine(link, campaignName)}
${apiForm({ id: form, api: `/api/dashboard/links/${link.id}`, method: 'PATCH', submit: 'Update delivery', success: 'reload', changedOnly: true }, controls)}
</div>`;
}

/** What crawlers and link-preview bots are shown for a smart link; all three empty removes the preview. */
export function previewSettings(link: LinkResponse): Html {
  const form = 'link-preview';
  const preview = link.preview ?? {};
  return html`<div class="panel"><h2>Social preview</h2>
<p class="muted small">Shown to crawlers and link-preview bots on /l (Open Graph tags); people are sent on as usual. Leave all three empty to remove it.</p>
${apiForm({ id: form, api: `/api/dashboard/links/${link.id}`, method: 'PATCH', submit: 'Update preview', success: 'reload', changedOnly: true }, [
  field(form, { name: 'preview.title', label: 'Preview title', value: preview.title ?? '' }),
  field(form, { name: 'preview.description', label: 'Preview description', rows: 3, value: preview.description ?? '' }),
  field(form, { name: 'preview.image', label: 'Preview image URL', type: 'url', value: preview.image ?? '', placeholder: 'https://cdn.example.com/card.png', hint: 'An absolute https URL.' }),
])}
</div>`;
}

/** Delete, after the browser's confirmation; the list page follows. */
export function deleteSection(link: LinkResponse): Html {
  return html`<div class="panel"><h2>Delete</h2>
<p class="muted small">${link.url} answers 404 from the next visit on and the slug is free again. Its clicks, installs and conversions stay in the reports.</p>
<div class="actions"><button type="button" class="danger" data-api="/api/dashboard/links/${link.id}" data-method="DELETE" data-success="redirect:/links" data-error="link-delete-error"
 data-confirm="Delete the link ${link.slug}? Its URL stops working; this cannot be undone.">Delete link</button></div>
<p class="error" id="link-delete-error" role="alert" hidden></p>
</div>`;
}
