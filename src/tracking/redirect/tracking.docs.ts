import { t, type TSchema } from 'elysia';

/**
 * What GET /c, /l and /i take and answer, for the OpenAPI document (src/openapi/). These routes
 * are Bun's own (tracking.routes.ts) and read their query by hand, so the schemas live here.
 */
const text = (description: string) => t.Optional(t.String({ description }));

const AD_PARAMS = {
  gclid: text('ad-platform click id'),
  gbraid: text('ad-platform click id (iOS apps)'),
  wbraid: text('ad-platform click id (web to app)'),
  campaignid: text('{campaignid}'),
  adgroupid: text('{adgroupid}'),
  creative: text('{creative}'),
  keyword: text('{keyword}'),
  matchtype: text('one of e, p, b, a'),
  network: text('one of g, s, d, ytv, yts'),
  device: text('one of m, t, c'),
  placement: text('{placement}'),
  targetid: text('{targetid}'),
  loc_physical_ms: text('{loc_physical_ms}'),
  loc_interest_ms: text('{loc_interest_ms}'),
  adposition: text('{adposition}'),
};

const landing = {
  url: text('escaped landing URL (aliases u, redirect, dest, r), encoded up to three times'),
  force_transparent: t.Optional(t.Literal('true', { description: 'the server must follow `url`' })),
};

export interface TrackingRouteDoc {
  summary: string;
  params: TSchema;
  query: TSchema;
  /** Status to description; the body types are in `content`. */
  responses: Record<string, { description: string; content?: string[] }>;
}

export const TRACKING_ROUTE_DOCS: Record<string, TrackingRouteDoc> = {
  '/c/:slug': {
    summary: 'Certified click redirect: one 302 to the landing URL with svc_click_id appended',
    params: t.Object({ slug: t.String({ description: 'tracking link slug' }) }),
    query: t.Object({ ...landing, ...AD_PARAMS }),
    responses: {
      302: { description: 'to the landing URL, `Cache-Control: no-store`, no body' },
      400: { description: 'force_transparent without url, or a destination that is not http(s)', content: ['application/json'] },
      404: { description: 'unknown slug, paused link, or a host not bound to the link', content: ['application/json'] },
    },
  },
  '/l/:slug': {
    summary: 'Smart link: routed by geo, OS, IP type, in-app browser, parameters and time (docs/smart-links.md)',
    params: t.Object({ slug: t.String() }),
    query: t.Object({ url: text('transparent override; behaves like /c'), ...AD_PARAMS }, { additionalProperties: t.String({ description: 'available to rules as param.<name>' }) }),
    responses: {
      200: { description: 'an interstitial, a QR page on desktop, or a preview page for crawlers', content: ['text/html'] },
      302: { description: 'to the target the rules chose' },
      403: { description: 'the rule action is block; a page in words when the browser asks for text/html', content: ['application/json', 'text/html'] },
      404: { description: 'unknown slug or a rule answering 404; a page in words when the browser asks for text/html', content: ['application/json', 'text/html'] },
      410: { description: 'expired or click cap reached; a page in words when the browser asks for text/html', content: ['application/json', 'text/html'] },
    },
  },
  '/i/:campaign': {
    summary: 'Impression pixel: a 1x1 GIF, the impression recorded with IP and household hashes',
    params: t.Object({ campaign: t.String({ description: 'campaign id or ad-platform external id' }) }),
    query: t.Object({ app: text('app id'), cr: text('creative id'), pl: text('placement'), p: text('partner or network') }),
    responses: { 200: { description: 'image/gif, `Cache-Control: no-store`', content: ['image/gif'] } },
  },
};
