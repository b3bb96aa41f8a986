/**
 * What the links page shows: a page of the organization's links through the same service as
 * GET /api/v1/links, narrowed by the URL's search and filters, with each row's clicks of the
 * last 24 hours and 30 days read from the analytics mirror in one statement for the page.
 */
import { t } from 'elysia';
import { selectLinkClickCounts } from '../../analytics/link-clicks.repo';
import type { Mirror } from '../../analytics/mirror/mirror';
import { listCampaigns } from '../../campaigns/campaigns.service';
import type { Config } from '../../config/config';
import type { Db } from '../../db/db';
import { CursorQuery } from '../../http/pagination';
import { LINK_KINDS, LINK_SORTS, LINK_STATUSES, MAX_LINK_SEARCH_LENGTH, type ListLinksQuery } from '../../links/links.model';
import { selectLinkDomains } from '../../links/links.repo';
import { listLinks } from '../../links/links.service';
import type { Clock } from '../../shared/ids';
import type { Html } from './html';
import { linksPage, type LinksPageFilters } from './pages/links.page';

/** The page's URL parameters: a GET form sends every field, '' for "any". */
const FILTER_NAMES = ['q', 'kind', 'status', 'campaign_id', 'domain', 'sort'] as const satisfies readonly (keyof LinksPageFilters)[];
export const LinksPageQuery = t.Object({ cursor: CursorQuery, ...Object.fromEntries(FILTER_NAMES.map((name) => [name, t.Optional(t.String({ maxLength: 512 }))])) });
export type LinksPageQuery = { cursor?: string } & Partial<Record<(typeof FILTER_NAMES)[number], string>>;

/** The campaigns offered as a filter and named in the rows: the newest, one page of the API. */
const LISTED_CAMPAIGNS = 1000;

export interface LinksViewDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'trackingUrl' | 'trackingHost' | 'domainVerification'>;
  mirror: Pick<Mirror, 'query'>;
}

const oneOf = <T extends string>(allowed: readonly T[], value: string | undefined): T | undefined => (allowed as readonly string[]).includes(value ?? '') ? (value as T) : undefined;

/**
 * The URL's filters as the page shows them and the list reads them: empty fields are "any", a
 * value no choice has (a hand-edited URL) is "any" too, and a search is trimmed to its limit.
 */
export function pageFilters(query: LinksPageQuery): LinksPageFilters {
  return {
    q: (query.q ?? '').trim().slice(0, MAX_LINK_SEARCH_LENGTH),
    kind: oneOf(LINK_KINDS, query.kind) ?? '',
    status: oneOf(LINK_STATUSES, query.status) ?? '',
    campaign_id: (query.campaign_id ?? '').slice(0, 64),
    domain: (query.domain ?? '').slice(0, 259),
    sort: oneOf(LINK_SORTS, query.sort) ?? '-created_at',
  };
}

function listQuery(filters: LinksPageFilters, limit: number, cursor: string | undefined): ListLinksQuery {
  return {
    limit,
    cursor,
    q: filters.q || undefined,
    kind: filters.kind || undefined,
    status: filters.status || undefined,
    campaign_id: filters.campaign_id || undefined,
    domain: filters.domain || undefined,
    sort: filters.sort,
  };
}

export async function linksView(deps: LinksViewDeps, orgId: string, query: LinksPageQuery, rows: number): Promise<Html> {
  const filters = pageFilters(query);
  const [links, campaigns, domains] = await Promise.all([
    listLinks(deps, orgId, listQuery(filters, rows, query.cursor)),
    listCampaigns(deps, orgId, { limit: LISTED_CAMPAIGNS }),
    selectLinkDomains(deps.db, orgId),
  ]);
  const clicks = await selectLinkClickCounts(deps.mirror, orgId, links.data.map((link) => link.id), deps.clock());
  return linksPage({
    page: links,
    campaigns: campaigns.data,
    domains: domains.map((domain) => (domain === '' ? deps.config.trackingHost : domain)),
    clicks,
    filters,
    first: query.cursor === undefined,
  });
}
