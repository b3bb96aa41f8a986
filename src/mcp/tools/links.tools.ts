/** list_links and get_link: the organization's links, as GET /api/v1/links answers them. */
import { Type, type TSchema } from '@sinclair/typebox';
import { validationError } from '../../http/errors';
import { PreviewShape } from '../../links/link-preview';
import { DEFAULT_LIST_LIMIT, LINK_KINDS, LINK_STATUSES, SLUG_PATTERN, type LinkResponse } from '../../links/links.model';
import { getLink, getLinkBySlug, listLinks } from '../../links/links.service';
import { RuleSetSchema } from '../../tracking/smartlinks/rules/rules.model';
import { block, table } from '../render';
import { keyedTool } from '../tool';

const Nullable = <T extends TSchema>(schema: T, options?: { description: string }) => Type.Union([schema, Type.Null()], options);

/** A link as the links API answers it (docs/links-api.md). */
export const LinkOutput = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  kind: Type.Union(LINK_KINDS.map((kind) => Type.Literal(kind))),
  campaign_id: Nullable(Type.String()),
  destination: Nullable(Type.String()),
  domain: Nullable(Type.String({ description: 'custom domain; null on the tracking host' })),
  status: Type.Union(LINK_STATUSES.map((status) => Type.Literal(status))),
  expires_at: Nullable(Type.String()),
  click_cap: Type.Union([Type.Integer(), Type.Null()]),
  rules: Nullable(RuleSetSchema, { description: 'smart links: the rule set in its stored form (docs/smart-links.md), or null' }),
  pass_params: Type.Boolean(),
  preview: Nullable(PreviewShape, { description: 'smart links: what link-preview bots are shown, or null' }),
  deep_link_path: Nullable(Type.String()),
  allowed_landing_hosts: Type.Union([Type.Array(Type.String()), Type.Null()]),
  domain_status: Nullable(Type.String()),
  domain_note: Nullable(Type.String()),
  url: Type.String({ description: 'the address to share: /c/{slug} for tracking links, /l/{slug} for smart links' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const linksTable = (links: readonly LinkResponse[]) =>
  table(links, [
    { title: 'id', value: (link) => link.id },
    { title: 'slug', value: (link) => link.slug },
    { title: 'kind', value: (link) => link.kind },
    { title: 'status', value: (link) => link.status },
    { title: 'campaign', value: (link) => link.campaign_id },
    { title: 'rules', value: (link) => (link.kind === 'smart' ? ruleCount(link.rules) : null) },
    { title: 'url', value: (link) => link.url },
  ]);

function ruleCount(rules: unknown): string {
  const list = (rules as { rules?: unknown[] } | null)?.rules;
  return Array.isArray(list) ? `${list.length} rule${list.length === 1 ? '' : 's'}` : 'none';
}

export const listLinksTool = keyedTool({
  name: 'list_links',
  title: 'List links',
  description:
    "Lists this organization's links, newest first: tracking links (/c/{slug}) and smart links (/l/{slug}) with their id, slug, status, " +
    'campaign, destination and rules. Use the id with get_link, update_smart_link_routing or set_link_status.',
  input: Type.Object(
    { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: `links to return, 1 to 1000 (default ${DEFAULT_LIST_LIMIT})`, error: 'must be an integer from 1 to 1000' })) },
    { additionalProperties: false },
  ),
  output: Type.Object({ links: Type.Array(LinkOutput) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, deps, principal) {
    return { links: (await listLinks(deps, principal.orgId, { limit: args.limit })).data };
  },
  render: ({ links }: { links: LinkResponse[] }) => linksTable(links),
});

export const getLinkTool = keyedTool({
  name: 'get_link',
  title: 'Get a link',
  description:
    'Returns one link of this organization with its whole configuration (destination, status, expiry, click cap, smart-link rules, ' +
    'preview, deep link path). Give either `id` or `slug`; a slug used on several domains names the link on the tracking host first.',
  input: Type.Object(
    {
      id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the link id', error: 'must be a link id' })),
      slug: Type.Optional(Type.String({ pattern: SLUG_PATTERN, description: 'the slug in /c/{slug} or /l/{slug}', error: 'must be a link slug' })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ link: LinkOutput }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, deps, principal) {
    if ((args.id === undefined) === (args.slug === undefined)) throw validationError({}, ['give exactly one of id or slug']);
    const link = args.id !== undefined ? await getLink(deps, principal.orgId, args.id) : await getLinkBySlug(deps, principal.orgId, args.slug!);
    return { link };
  },
  render: ({ link }: { link: LinkResponse }) => block(`Link ${link.slug} (${link.kind}, ${link.status}): ${link.url}`, link),
});
