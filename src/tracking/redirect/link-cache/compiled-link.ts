import { compileLandingHosts, type LandingHosts } from '../landing-hosts';
import { compileSmartLink, type SmartLink } from '../../smartlinks/smart-link';
import { checkHttpUrl } from '../landing-url';
import type { LinkRow } from '../lookups.repo';

/** A link as the redirect needs it, checked once when it enters the cache. */
export interface CompiledLink {
  id: string;
  orgId: string;
  campaignId: string | null;
  domain: string;
  slug: string;
  /** 'tracking' or 'smart', and 'active' or 'paused', as stored (edge ingest takes both kinds). */
  kind: string;
  status: string;
  /** Only active tracking links answer /c; paused links and other kinds answer 404. */
  serves: boolean;
  /** The validated destination, or null when the link has none usable (then a `url` is required). */
  destination: string | null;
  /** Where a `url` may send the visitor; null: anywhere (the transparent redirect's default). */
  landingHosts: LandingHosts | null;
  /** An active smart link's routing, compiled once here; null for every link /l does not serve. */
  smart: SmartLink | null;
}

export function compileLink(row: LinkRow): CompiledLink {
  const destination = row.destination ? checkHttpUrl(row.destination) : null;
  return {
    id: row.id,
    orgId: row.org_id,
    campaignId: row.campaign_id,
    domain: row.domain,
    slug: row.slug,
    kind: row.kind,
    status: row.status,
    serves: row.kind === 'tracking' && row.status === 'active',
    destination: destination?.ok ? destination.url : null,
    landingHosts: Array.isArray(row.allowed_landing_hosts) ? compileLandingHosts(row.allowed_landing_hosts) : null,
    smart: row.kind === 'smart' && row.status === 'active' ? compileSmartLink(row) : null,
  };
}
