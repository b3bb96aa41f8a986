/**
 * The management tools: replace a smart link's rules, set a link's status (both full
 * replacements, safe to repeat, audited with the key), and the route test (records nothing).
 */
import { Type } from '@sinclair/typebox';
import { LINK_STATUSES } from '../../links/links.model';
import { replaceSmartLinkRules, setLinkStatus, type Replaced } from '../../links/links.service';
import { RouteTestBody, RouteTestResultBody } from '../../smartlinks/route-test.model';
import { MAX_RULES, RuleSchema, RuleSetSchema } from '../../tracking/smartlinks/rules/rules.model';
import { testRoute } from '../../smartlinks/route-test.service';
import { block } from '../render';
import { keyedTool } from '../tool';
import { LinkOutput } from './links.tools';

const LinkId = Type.String({ minLength: 1, maxLength: 64, description: 'the link id (list_links, get_link)', error: 'must be a link id' });
const ReplacedOutput = Type.Object({
  changed: Type.Boolean({ description: 'false when the link already had this value: nothing was written' }),
  link: LinkOutput,
});

const RULES_EXAMPLE = JSON.stringify({
  version: 1,
  rules: [{ name: 'ios', if: { os: 'ios' }, then: { store: 'https://apps.apple.com/app/id123' } }, { name: 'de', if: { country: ['DE', 'AT'] }, then: { url: 'https://shop.example.com/de' } }],
  fallback: { url: 'https://shop.example.com' },
});

const renderReplaced = (what: string) => ({ changed, link }: Replaced) =>
  block(changed ? `${what} of ${link.slug} replaced.` : `${what} of ${link.slug} already so: nothing changed.`, link);

export const updateSmartLinkRouting = keyedTool({
  name: 'update_smart_link_routing',
  title: 'Replace a smart link’s routing rules',
  description:
    "Replaces a smart link's routing rules whole with `rules` (null removes them, so every visit goes to the link's destination). " +
    'The rule schema is that of docs/smart-links.md (read it with get_doc, path "smart-links.md"): {version: 1, rules: [{name, if, then}], fallback: {url}}, ' +
    'conditions country, region, city, os, ip_type, in_app, language, params, hours, weekdays; actions url, store, deep_link, variants, block. ' +
    `Example: ${RULES_EXAMPLE}. Rules are checked exactly as the links API checks them; an error names the path of the bad value ` +
    '(e.g. rules.rules.0.if.country). Safe to repeat: the same rules again change nothing. Try a rule set first with test_smart_link_route.',
  input: Type.Object(
    {
      link_id: LinkId,
      rules: Type.Union([Type.Array(Type.Unknown()), Type.Record(Type.String(), Type.Unknown()), Type.Null()], { error: 'must be a rule set object, an array of rules, or null' }),
    },
    { additionalProperties: false },
  ),
  // The rule parser reads more spellings than the stored form shown here (one value for a list, any case).
  shownInput: Type.Object(
    {
      link_id: LinkId,
      rules: Type.Union([RuleSetSchema, Type.Array(RuleSchema, { maxItems: MAX_RULES }), Type.Null()], {
        description: 'the whole rule set (or a bare array of rules), or null to remove the rules; shown in its stored form, and a list condition also takes a single value, codes in any case',
      }),
    },
    { additionalProperties: false },
  ),
  output: ReplacedOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: (args, deps, principal) => replaceSmartLinkRules(deps, { orgId: principal.orgId, apiKeyId: principal.keyId }, args.link_id, args.rules),
  render: renderReplaced('The routing rules'),
});

export const setLinkStatusTool = keyedTool({
  name: 'set_link_status',
  title: 'Pause or resume a link',
  description:
    'Sets a link\'s status: "paused" makes /c/{slug} and /l/{slug} answer 404 (no click is recorded), "active" serves it again. ' +
    'Safe to repeat: setting the status it already has changes nothing.',
  input: Type.Object(
    {
      link_id: LinkId,
      status: Type.Union(LINK_STATUSES.map((status) => Type.Literal(status)), { description: "'active' or 'paused'", error: "must be 'active' or 'paused'" }),
    },
    { additionalProperties: false },
  ),
  output: ReplacedOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: (args, deps, principal) => setLinkStatus(deps, { orgId: principal.orgId, apiKeyId: principal.keyId }, args.link_id, args.status),
  render: renderReplaced('The status'),
});

/** RouteTestRequest of the interface, `hour` a JSON integer only (the REST model also reads it from text). */
const RouteTestInput = Type.Object(
  {
    ...RouteTestBody.properties,
    hour: Type.Optional(Type.Integer({ minimum: 0, maximum: 23, description: 'the local hour of the visit in `timezone` (default: now)', error: 'must be an integer from 0 to 23' })),
  },
  { additionalProperties: false },
);

export const testSmartLinkRoute = keyedTool({
  name: 'test_smart_link_route',
  title: 'Test where a smart link sends a visit',
  description:
    'Shows what a visit with the given facts would get from /l/{slug}: the facts as the rules see them (context), the matching rule and ' +
    'the answer (decision: rule_index, rule_name, action, status, location or page), and, when `ip` is given, how that address is classified (pool). ' +
    'Nothing is recorded and no click cap slot is used. Facts left out are read from `ua`, `ip` and `language` as a real visit would be; ' +
    'country, region, city, os and inApp override them. `hour` with `timezone` (default UTC) picks the time of day.',
  input: RouteTestInput,
  output: RouteTestResultBody,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: (args, deps, principal) => testRoute(deps, principal.orgId, args),
  render: (result: { decision: { rule_name: string | null; status: number; location: string | null } }) =>
    block(`Decision: ${result.decision.rule_name ?? 'no rule'} -> ${result.decision.status}${result.decision.location ? ` ${result.decision.location}` : ''}`, result),
});
