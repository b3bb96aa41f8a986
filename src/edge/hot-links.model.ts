import { t } from 'elysia';

/** What GET /api/edge/links/hot answers: at most this many links. */
export const HOT_LINKS_LIMIT = 100;
/** The spec's hot links window. */
export const HOT_LINKS_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * One link as an edge worker caches it (docs/edge.md). `rules` and `allowed_landing_hosts` are
 * the stored JSON values; `version` is the link's updated_at in milliseconds since the epoch.
 */
export const HotLink = t.Object({
  slug: t.String(),
  domain: t.Union([t.String(), t.Null()]),
  kind: t.String(),
  status: t.String(),
  destination: t.Union([t.String(), t.Null()]),
  expires_at: t.Union([t.String(), t.Null()]),
  click_cap: t.Union([t.Integer(), t.Null()]),
  rules: t.Unknown(),
  allowed_landing_hosts: t.Union([t.Array(t.String()), t.Null()]),
  clicks_24h: t.Integer(),
  version: t.Integer(),
});
export type HotLink = typeof HotLink.static;

export const HotLinkList = t.Array(HotLink);
