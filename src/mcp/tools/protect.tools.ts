/** invalid_clicks: the invalid-click export (GET /api/protect/export) as ranked rows. */
import { Type } from '@sinclair/typebox';
import { selectCampaignNames } from '../../campaigns/campaigns.repo';
import { DEFAULT_EXPORT_DAYS, MAX_EXPORT_DAYS } from '../../protect/export/export.model';
import { readInvalidIps } from '../../protect/export/export.service';
import { orderReasons } from '../../tracking/risk/risk-signals';
import { table } from '../render';
import { keyedTool } from '../tool';

/** The IPs read at most: past it the answer says it is incomplete. */
export const MAX_SCANNED_IPS = 10_000;
const MAX_ROWS = 200;
const DEFAULT_ROWS = 25;

const Row = Type.Object({
  ip: Type.String(),
  campaign_id: Type.Union([Type.String(), Type.Null()]),
  campaign: Type.Union([Type.String(), Type.Null()]),
  score: Type.Integer({ description: 'the highest risk score of its clicks, 0 to 100' }),
  clicks: Type.Integer(),
  reasons: Type.Array(Type.String(), { description: 'risk signals seen (docs/protect.md, "Signals")' }),
  gclid: Type.Union([Type.String(), Type.Null()], { description: 'the latest Google click id, to look the click up in Google Ads' }),
  first_seen: Type.String(),
  last_seen: Type.String(),
});

interface InvalidClicks {
  days: number;
  threshold: number;
  complete: boolean;
  total: { ips: number; clicks: number };
  reasons: Record<string, number>;
  rows: (typeof Row)['static'][];
}

export const invalidClicksTool = keyedTool({
  name: 'invalid_clicks',
  title: 'Invalid clicks by IP',
  description:
    "This organization's invalid clicks of the last `days` days (clicks whose risk score reached the organization's invalid threshold; " +
    'verified crawlers excluded), grouped by IP address and campaign, as in the invalid-click CSV export. Returns the totals, how many ' +
    'IPs showed each risk signal, and the worst IPs first (highest score, then most clicks). Use it to find click fraud and the IPs to exclude.',
  input: Type.Object(
    {
      days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EXPORT_DAYS, description: `days back from now, 1 to ${MAX_EXPORT_DAYS} (default ${DEFAULT_EXPORT_DAYS})`, error: `must be an integer from 1 to ${MAX_EXPORT_DAYS}` })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ROWS, description: `rows to return, 1 to ${MAX_ROWS} (default ${DEFAULT_ROWS})`, error: `must be an integer from 1 to ${MAX_ROWS}` })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    days: Type.Integer(),
    threshold: Type.Integer({ description: "the organization's invalid threshold" }),
    complete: Type.Boolean({ description: `false when more than ${MAX_SCANNED_IPS} IP and campaign pairs were found: totals cover the first ones only` }),
    total: Type.Object({ ips: Type.Integer({ description: 'IP and campaign pairs' }), clicks: Type.Integer() }),
    reasons: Type.Record(Type.String(), Type.Integer(), { description: 'risk signal -> IP and campaign pairs that showed it' }),
    rows: Type.Array(Row),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, deps, principal): Promise<InvalidClicks> {
    const days = args.days ?? DEFAULT_EXPORT_DAYS;
    const found = await readInvalidIps(deps, principal.orgId, days, MAX_SCANNED_IPS);
    const reasons: Record<string, number> = {};
    for (const row of found.rows) for (const reason of orderReasons(row.reasons ?? [])) reasons[reason] = (reasons[reason] ?? 0) + 1;
    const worst = [...found.rows].sort((a, b) => Number(b.score) - Number(a.score) || Number(b.clicks) - Number(a.clicks) || a.ip.localeCompare(b.ip)).slice(0, args.limit ?? DEFAULT_ROWS);
    const names = await selectCampaignNames(deps.db, principal.orgId, [...new Set(worst.map((row) => row.campaign_id).filter((id) => id !== ''))]);
    return {
      days,
      threshold: found.threshold,
      complete: found.complete,
      total: { ips: found.rows.length, clicks: found.rows.reduce((sum, row) => sum + Number(row.clicks), 0) },
      reasons,
      rows: worst.map((row) => ({
        ip: row.ip,
        campaign_id: row.campaign_id === '' ? null : row.campaign_id,
        campaign: row.campaign_id === '' ? null : (names.get(row.campaign_id) ?? null),
        score: Number(row.score),
        clicks: Number(row.clicks),
        reasons: orderReasons(row.reasons ?? []),
        gclid: row.gclid ?? null,
        first_seen: new Date(row.first_seen).toISOString(),
        last_seen: new Date(row.last_seen).toISOString(),
      })),
    };
  },
  render: (result: InvalidClicks) =>
    `${result.total.ips} IP and campaign pairs, ${result.total.clicks} invalid clicks in the last ${result.days} days (threshold ${result.threshold})` +
    `${result.complete ? '' : `; only the first ${MAX_SCANNED_IPS} pairs were read`}.\n\nSignals: ${Object.entries(result.reasons).map(([reason, count]) => `${reason} ${count}`).join(', ') || 'none'}\n\n` +
    table(result.rows, [
      { title: 'ip', value: (row) => row.ip },
      { title: 'campaign', value: (row) => row.campaign ?? row.campaign_id },
      { title: 'score', value: (row) => row.score },
      { title: 'clicks', value: (row) => row.clicks },
      { title: 'reasons', value: (row) => row.reasons.join(', ') },
      { title: 'last seen', value: (row) => row.last_seen },
    ]),
});
