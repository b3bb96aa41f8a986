import type { LinkStatsAnswer } from '../../../analytics/link-stats/link-stats.model';
import type { LinkResponse } from '../../../links/links.model';
import { apiForm, field } from '../forms';
import { html, type Html } from '../html';
import { appPage } from '../layout';
import { linkAnalytics } from './link-analytics-view';
import { deleteSection, deliverySettings, previewSettings } from './link-settings-view';

/** Offered by the editor's "Insert example" button; never the box's value. */
const EXAMPLE_RULES = {
  version: 1,
  rules: [{ name: 'ios', if: { os: ['ios'] }, then: { store: 'https://apps.apple.com/app/id123' } }],
  fallback: { url: 'https://shop.example.com' },
};

function routeTest(link: LinkResponse): Html {
  return html`<div class="panel">
<h2>Route test</h2>
<p class="muted small">What a visit with these facts would get, using the saved rules. Nothing is recorded.</p>
${apiForm({ id: 'route-test', api: '/api/dashboard/route-test', submit: 'Test route', success: 'show-json', result: 'route-test-result', body: { slug: link.slug } }, [
  field('route-test', { name: 'country', label: 'Country', placeholder: 'US', hint: 'ISO 3166 alpha-2; or give an IP.' }),
  field('route-test', { name: 'os', label: 'Operating system', options: [['', 'From the user agent'], ['ios', 'iOS'], ['android', 'Android'], ['desktop', 'Desktop']], value: '' }),
  field('route-test', { name: 'ip', label: 'IP address' }),
  field('route-test', { name: 'ua', label: 'User agent' }),
  field('route-test', { name: 'language', label: 'Accept-Language', placeholder: 'de-DE,de;q=0.9' }),
  field('route-test', { name: 'hour', label: 'Hour (0 to 23)', type: 'number', dataType: 'number' }),
  field('route-test', { name: 'timezone', label: 'Time zone', placeholder: 'Europe/Berlin' }),
  field('route-test', { name: 'params', label: 'Query string', placeholder: 'utm_source=news' }),
  field('route-test', { name: 'inApp', label: 'In-app browser', options: [['', 'From the user agent'], ['true', 'Yes'], ['false', 'No']], value: '' }),
])}
<div data-result-box hidden><h3 class="small">Decision</h3><pre class="result" id="route-test-result" tabindex="0" aria-live="polite"></pre></div>
</div>`;
}

/**
 * GET /links/{id}: the link's analytics; its settings, for a smart link the rules editor with the
 * route test beside it; the rest of its settings; delete.
 */
export function linkPage(link: LinkResponse, more: { stats: LinkStatsAnswer; campaignName: string | null }): Html {
  const settings = apiForm({ id: 'link-settings', api: `/api/dashboard/links/${link.id}`, method: 'PATCH', submit: 'Save', success: 'reload', changedOnly: true }, [
    field('link-settings', { name: 'destination', label: 'Destination', type: 'url', value: link.destination, emptyIsNull: true }),
    field('link-settings', { name: 'status', label: 'Status', options: [['active', 'Active'], ['paused', 'Paused']], value: link.status }),
    ...(link.kind === 'smart'
      ? [
          field('link-settings', {
            name: 'rules',
            label: 'Rules (JSON)',
            rows: 18,
            dataType: 'json',
            emptyIsNull: true,
            value: link.rules === null ? '' : JSON.stringify(link.rules, null, 2),
            example: JSON.stringify(EXAMPLE_RULES, null, 2),
            hint: 'Rule schema version 1: conditions country, region, city, os, ip_type, in_app, language, params, hours, weekdays; actions url, store, deep_link, variants, block. Empty removes the rules; a save leaves them as they are unless you change this box.',
          }),
        ]
      : []),
  ]);
  return appPage(
    { title: `Link ${link.slug}`, current: '/links' },
    html`<p><a href="/links">← All links</a> · <code>${link.url}</code> · <span class="badge ${link.status}">${link.status}</span> · ${link.kind} link</p>
${linkAnalytics(more.stats, link.kind)}
<div class="row">
<div class="panel"><h2>${link.kind === 'smart' ? 'Rules and settings' : 'Settings'}</h2>${settings}</div>
${link.kind === 'smart' ? routeTest(link) : ''}
</div>
<div class="row">
${deliverySettings(link, more.campaignName)}
${link.kind === 'smart' ? previewSettings(link) : ''}
</div>
${deleteSection(link)}`,
  );
}
