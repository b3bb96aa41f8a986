import type { Config } from '../config/config';
import type { Db } from '../db/db';
import type { Clock } from '../shared/ids';
import { HOT_LINKS_LIMIT, HOT_LINKS_WINDOW_MS, type HotLink } from './hot-links.model';
import { selectHotLinks, type HotLinkRow } from './hot-links.repo';

export interface HotLinksDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'domainVerification'>;
}

/**
 * The organization's links an edge worker should hold: the most clicked in the last 24 hours,
 * then links without clicks there (newest change first), so a new link is warm before its
 * first visitor.
 */
export async function hotLinks({ db, clock, config }: HotLinksDeps, orgId: string): Promise<HotLink[]> {
  const rows = await selectHotLinks(db, {
    orgId,
    since: new Date(clock().getTime() - HOT_LINKS_WINDOW_MS),
    requireVerifiedDomains: config.domainVerification === 'dns',
    limit: HOT_LINKS_LIMIT,
  });
  return rows.map(toHotLink);
}

function toHotLink(row: HotLinkRow): HotLink {
  return {
    slug: row.slug,
    domain: row.domain === '' ? null : row.domain,
    kind: row.kind,
    status: row.status,
    destination: row.destination,
    expires_at: row.expires_at?.toISOString() ?? null,
    click_cap: row.click_cap,
    rules: row.rules ?? null,
    allowed_landing_hosts: Array.isArray(row.allowed_landing_hosts) ? (row.allowed_landing_hosts as string[]) : null,
    clicks_24h: row.clicks_24h,
    version: row.updated_at.getTime(),
  };
}
