import { html, type Html } from './html';

/**
 * Small charts drawn on the server as inline SVG: no script, nothing fetched, and every number is
 * also in the table beside the chart (the chart is a picture of it, named by its title). Series
 * colours come from the stylesheet (`.series-N`), so they follow the colour scheme.
 */
export interface LineSeries {
  label: string;
  /** One value per x position; null leaves a gap (a cohort day not reached yet). */
  values: readonly (number | null)[];
}

const WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 48, right: 16, top: 16, bottom: 36 };
export const MAX_SERIES = 8;

const fixed = (value: number) => Math.round(value * 10) / 10;

/** A line chart: x positions evenly spaced and labelled, y from 0 to the largest value. */
export function lineChart(options: { title: string; xLabels: readonly string[]; series: readonly LineSeries[]; format: (value: number) => string }): Html {
  const series = options.series.slice(0, MAX_SERIES);
  const max = Math.max(0, ...series.flatMap((line) => line.values.filter((value): value is number => value !== null)));
  const top = max > 0 ? max : 1;
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (index: number) => fixed(PAD.left + (options.xLabels.length <= 1 ? plotWidth / 2 : (index * plotWidth) / (options.xLabels.length - 1)));
  const y = (value: number) => fixed(PAD.top + plotHeight - (value / top) * plotHeight);
  const ticks = [0, 0.5, 1].map((share) => top * share);
  const paths = series.map((line, index) => {
    // A gap (null) starts a new stroke, so a line never bridges days not reached.
    let d = '';
    let pen = false;
    line.values.forEach((value, position) => {
      if (value === null) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${x(position)} ${y(value)} `;
      pen = true;
    });
    const dots = line.values.map((value, position) => (value === null ? '' : html`<circle class="series-${index % MAX_SERIES}" cx="${x(position)}" cy="${y(value)}" r="3"></circle>`));
    return html`<g><path class="series-${index % MAX_SERIES}" d="${d.trim()}" fill="none" stroke-width="2"></path>${dots}</g>`;
  });
  return html`<figure class="svg-chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${options.title}" focusable="false">
${ticks.map((tick) => html`<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(tick)}" y2="${y(tick)}"></line><text class="axis" x="${PAD.left - 6}" y="${y(tick) + 4}" text-anchor="end">${options.format(tick)}</text>`)}
${options.xLabels.map((label, index) => html`<text class="axis" x="${x(index)}" y="${HEIGHT - PAD.bottom + 18}" text-anchor="middle">${label}</text>`)}
${paths}
</svg>
<figcaption>${legend(series.map((line) => line.label))}</figcaption>
</figure>`;
}

/** Horizontal bars, one per label, with the value written at the end of each bar. */
export function barChart(options: { title: string; bars: readonly { label: string; value: number }[]; format: (value: number) => string }): Html {
  const bars = options.bars.slice(0, 12);
  const row = 24;
  const labelWidth = 180;
  const height = Math.max(row, bars.length * row) + 8;
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const span = WIDTH - labelWidth - 80;
  return html`<figure class="svg-chart">
<svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${options.title}" focusable="false">
${bars.map((bar, index) => {
  const width = max > 0 ? fixed((Math.max(0, bar.value) / max) * span) : 0;
  const top = index * row + 4;
  return html`<text class="axis" x="${labelWidth - 8}" y="${top + 15}" text-anchor="end">${bar.label.length > 26 ? `${bar.label.slice(0, 25)}…` : bar.label}</text>
<rect class="series-0" x="${labelWidth}" y="${top}" width="${width}" height="${row - 8}"></rect>
<text class="axis" x="${labelWidth + width + 6}" y="${top + 15}">${options.format(bar.value)}</text>`;
})}
</svg>
</figure>`;
}

function legend(labels: readonly string[]): Html {
  return html`<ul class="legend">${labels.map((label, index) => html`<li><span class="swatch series-${index % MAX_SERIES}" aria-hidden="true"></span>${label}</li>`)}</ul>`;
}
