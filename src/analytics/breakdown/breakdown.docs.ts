import { refusal } from '../../http/documented';

/** The OpenAPI detail of both breakdown routes (docs/reports.md, "Breakdowns"). */
export const breakdownDetail = (caller: string) => ({
  summary: `Breakdown report: clicks, installs, revenue, spend, CPI, ROAS and CVR by one or two dimensions (${caller})`,
  description:
    "One table over the days `from` to `to` of the organization's reporting time zone, grouped by one or two of day, campaign, partner, " +
    'link, country, region, os, device, platform, network (`group_by=country,os`), filtered by campaign_id, partner, app_id, country, ' +
    'platform. Amounts are in the reporting currency; amounts in a currency with no exchange rate are left out and listed in `unconverted` ' +
    '(revenue) and `unconverted_spend`. A dimension a source does not have (spend by country, installs by link) puts that source under ' +
    'null, and a filter on such a dimension leaves the source out. The total is computed from the sums.',
  responses: { 400: refusal('a bad day, range, grouping or filter, naming the field', 'ValidationError') },
});
