import type { Realtime } from '../../../analytics/realtime';
import { html, jsonBlock, type Html } from '../html';
import { appPage } from '../layout';

const COUNTERS = [
  ['clicks', 'Clicks'],
  ['installs', 'Installs'],
  ['conversions', 'Conversions'],
] as const;

/** GET /: the realtime counters and the per-minute chart, kept live by the page's event stream. */
export function overviewPage(realtime: Realtime, hasLinks: boolean): Html {
  return appPage(
    { title: 'Overview', current: '/', charts: true },
    html`<section data-overview aria-label="Last 15 minutes">
<p class="muted small"><span data-stream-status>Connecting…</span> · the last ${realtime.window_minutes} minutes, updated as it happens</p>
<dl class="counters">
${COUNTERS.map(([name, label]) => html`<div><dt id="counter-${name}">${label}</dt><dd data-counter="${name}" aria-labelledby="counter-${name}" aria-live="polite">${realtime[name]}</dd></div>`)}
</dl>
<div class="panel">
<h2>Per minute</h2>
<div id="minute-chart" class="chart" role="img" aria-label="Clicks, installs and conversions per minute over the last 15 minutes"></div>
</div>
${jsonBlock('realtime-data', realtime)}
</section>
${hasLinks
  ? ''
  : html`<div class="panel">
<h2>Getting started</h2>
<ol>
<li><a href="/keys">Create an API key</a> for your server-to-server calls.</li>
<li><a href="/links">Create a tracking link</a> and put it in your ads.</li>
<li>Watch the clicks arrive here.</li>
</ol>
</div>`}`,
  );
}
