import { t } from 'elysia';
import type { DomainStatus } from '../domains/domains.model';
import { CursorQuery } from '../http/pagination';
import { WholeNumber } from '../http/strict-body';
import { MAX_TIMESTAMP_LENGTH } from '../shared/timestamp';
import { LANDING_HOSTS_ERROR, MAX_LANDING_HOSTS } from '../tracking/redirect/landing-hosts';
import type { RuleSet } from '../tracking/smartlinks/rules/rules.model';
import { MAX_URL_LENGTH } from '../shared/net/web-url';
import { MAX_DEEP_LINK_PATH_LENGTH } from './link-fields';
import type { LinkPreview } from './link-preview';

/** The stored row as the repository returns it. */
export interface LinkRow {
  id: string;
  org_id: string;
  slug: string;
  domain: string;
  kind: LinkKind;
  campaign_id: string | null;
  destination: string | null;
  deep_link_path: string | null;
  status: LinkStatus;
  expires_at: Date | null;
  click_cap: number | null;
  /** A rule set as parseRules stores it; a row not written through the API may hold other JSON. */
  rules: unknown;
  pass_params: boolean;
  preview: LinkPreview | null;
  allowed_landing_hosts: string[] | null;
  created_at: Date;
  updated_at: Date;
  /** null on the tracking host (src/domains/domains.repo.ts, LINK_DOMAIN_STATUS). */
  domain_status: DomainStatus | null;
}

export const LINK_KINDS = ['tracking', 'smart'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];
export const LINK_STATUSES = ['active', 'paused'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

export const SLUG_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
/** Generated slugs: base62, long enough that a collision is rare and retried. */
export const GENERATED_SLUG_LENGTH = 7;
export const MAX_CLICK_CAP = 2_147_483_647;

const Kind = t.Union(LINK_KINDS.map((k) => t.Literal(k)), { error: "must be 'tracking' or 'smart'" });
const Status = t.Union(LINK_STATUSES.map((s) => t.Literal(s)), { error: "must be 'active' or 'paused'" });

/** Fields a create and a PATCH share. null clears a field (PATCH) or means "none" (create). */
const mutable = {
  destination: t.Optional(t.Union([t.String({ maxLength: MAX_URL_LENGTH }), t.Null()], { error: 'must be an absolute http(s) URL or null' })),
  domain: t.Optional(t.Union([t.String({ maxLength: 259 }), t.Null()], { error: 'must be a hostname or null (the tracking host)' })),
  status: t.Optional(Status),
  expires_at: t.Optional(t.Union([t.String({ maxLength: MAX_TIMESTAMP_LENGTH }), t.Null()], { error: 'must be an ISO 8601 timestamp or null' })),
  click_cap: t.Optional(
    t.Union([WholeNumber({ minimum: 1, maximum: MAX_CLICK_CAP }), t.Null()], { error: `must be an integer from 1 to ${MAX_CLICK_CAP} or null` }),
  ),
  // rules and preview are checked by their parsers, so each error names its exact path.
  rules: t.Optional(t.Union([t.Array(t.Unknown()), t.Record(t.String(), t.Unknown()), t.Null()], { error: 'must be an array, an object or null' })),
  pass_params: t.Optional(t.Boolean({ error: 'must be true or false' })),
  preview: t.Optional(t.Union([t.Record(t.String(), t.Unknown()), t.Null()], { error: 'must be an object {title, description, image} or null' })),
  deep_link_path: t.Optional(
    t.Union([t.String({ maxLength: MAX_DEEP_LINK_PATH_LENGTH }), t.Null()], { error: `must be a path of at most ${MAX_DEEP_LINK_PATH_LENGTH} characters or null` }),
  ),
  // Entries are checked one by one by the service, so each error names its index.
  allowed_landing_hosts: t.Optional(t.Union([t.Array(t.Unknown(), { maxItems: MAX_LANDING_HOSTS }), t.Null()], { error: LANDING_HOSTS_ERROR })),
};

export const CreateLinkBody = t.Object(
  {
    slug: t.Optional(t.String({ pattern: SLUG_PATTERN, error: 'must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -' })),
    kind: t.Optional(Kind),
    campaign_id: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()], { error: 'must be a campaign id or null' })),
    ...mutable,
  },
  { additionalProperties: false },
);
export type CreateLinkBody = typeof CreateLinkBody.static;

export const PatchLinkBody = t.Object(mutable, { additionalProperties: false });
export type PatchLinkBody = typeof PatchLinkBody.static;

export const LinkParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** The orders a list of links can be read in; a cursor is bound to its order. `-` is descending. */
export const LINK_SORTS = ['-created_at', 'created_at', 'slug', '-slug'] as const;
export type LinkSort = (typeof LINK_SORTS)[number];
export const MAX_LINK_SEARCH_LENGTH = 200;

/** Optional narrowing of a list of links (docs/links-api.md, "Links: search, filters and order"). */
export const LinkFilterFields = {
  q: t.Optional(t.String({ minLength: 1, maxLength: MAX_LINK_SEARCH_LENGTH, error: `must be 1 to ${MAX_LINK_SEARCH_LENGTH} characters` })),
  kind: t.Optional(Kind),
  status: t.Optional(Status),
  campaign_id: t.Optional(t.String({ minLength: 1, maxLength: 64, error: 'must be a campaign id' })),
  domain: t.Optional(t.String({ minLength: 1, maxLength: 259, error: 'must be a hostname (the tracking host for links without a custom domain)' })),
  sort: t.Optional(t.Union(LINK_SORTS.map((s) => t.Literal(s)), { error: `must be one of ${LINK_SORTS.join(', ')}` })),
};

export const ListLinksQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
  cursor: CursorQuery,
  ...LinkFilterFields,
});
export type ListLinksQuery = typeof ListLinksQuery.static;
export const DEFAULT_LIST_LIMIT = 100;

/** A list's filters as the repository applies them: every field optional, `domain` '' for the tracking host. */
export interface LinkFilters {
  search?: string;
  kind?: LinkKind;
  status?: LinkStatus;
  campaignId?: string;
  domain?: string;
}

/** A link as the API answers it. */
export interface LinkResponse {
  id: string;
  slug: string;
  kind: LinkKind;
  campaign_id: string | null;
  destination: string | null;
  domain: string | null;
  status: LinkStatus;
  expires_at: string | null;
  click_cap: number | null;
  rules: unknown;
  /** Smart links: whether the visit's query parameters are passed on to the target (docs/smart-links.md). */
  pass_params: boolean;
  /** Smart links: what crawlers and link-preview bots are shown. */
  preview: LinkPreview | null;
  deep_link_path: string | null;
  /** An optional extension of the interface's link (which it leaves "not shown"); docs/management-api.md. */
  allowed_landing_hosts: string[] | null;
  /**
   * Whether the custom domain serves the link (docs/management-api.md, "Custom domains"): null on
   * the tracking host; `not_required` when DOMAIN_VERIFICATION is off. `domain_note` says why not.
   */
  domain_status: DomainStatus | 'not_required' | null;
  domain_note: string | null;
  url: string;
  created_at: string;
  updated_at: string;
}

/** The values a write stores, after every field has been parsed; absent keys are left as they are. */
export interface LinkUpdate {
  destination?: string | null;
  domain?: string;
  status?: LinkStatus;
  expires_at?: Date | null;
  click_cap?: number | null;
  rules?: RuleSet | null;
  pass_params?: boolean;
  preview?: LinkPreview | null;
  deep_link_path?: string | null;
  allowed_landing_hosts?: string[] | null;
}
