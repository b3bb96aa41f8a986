/**
 * The MCP prompts: conversation starters that carry the organization's data (with a key) or the
 * documentation (without), and tell the model which tools to follow up with.
 */
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { daysEndingOn, utcDayOf } from '../analytics/report-range';
import { clicksSummary } from '../analytics/summaries';
import type { ApiKeyPrincipal } from '../auth/api-keys';
import { fieldError } from '../http/errors';
import { parseDay } from '../shared/timestamp';
import { SLUG_PATTERN } from '../links/links.model';
import { getLinkBySlug } from '../links/links.service';
import { docsIndex } from './docs-index';
import { block } from './render';
import type { McpDeps } from './tool';
import { campaignReportTool } from './tools/analytics.tools';
import { invalidClicksTool } from './tools/protect.tools';

const DAY_MS = 86_400_000;

export interface McpPrompt extends Prompt {
  /** Needs an API key: listed and served with one only. */
  keyed: boolean;
  get(args: Record<string, string>, deps: McpDeps, principal: ApiKeyPrincipal | null): Promise<GetPromptResult>;
}

const say = (text: string): GetPromptResult['messages'][number] => ({ role: 'user', content: { type: 'text', text } });

const weeklyCampaignReview: McpPrompt = {
  name: 'weekly_campaign_review',
  title: 'Weekly campaign review',
  description: 'Reviews the last 7 days of every campaign (spend, installs, revenue, CPI, ROAS) and the invalid clicks, and proposes what to change.',
  arguments: [{ name: 'end', description: 'the last day of the week to review, YYYY-MM-DD (default: yesterday, UTC)', required: false }],
  keyed: true,
  async get(args, deps, principal) {
    const end = parseDay(args.end ?? utcDayOf(new Date(deps.clock().getTime() - DAY_MS)));
    if ('error' in end) throw fieldError('end', end.error);
    const range = daysEndingOn(end.value, 7);
    const report = await campaignReportTool.run({ from: range.from, to: range.to }, deps, principal!);
    const invalid = await invalidClicksTool.run({ days: 7, limit: 10 }, deps, principal!);
    return {
      description: `Campaign review for ${range.from} to ${range.to}`,
      messages: [
        say(
          `Review my campaigns for the week ${range.from} to ${range.to}. For each campaign, judge spend against installs and revenue ` +
            '(CPI and ROAS), point out the best and the worst, and say which to scale, fix or pause. Take the invalid clicks into account: ' +
            'a campaign with many invalid clicks pays for traffic that never converts. Compare with the week before by calling campaign_report ' +
            'for those dates, and use clicks_summary, installs_summary or conversions_summary to dig into a campaign. End with a short list of actions.\n\n' +
            `${campaignReportTool.render(report)}\n\n## Invalid clicks (last 7 days)\n\n${invalidClicksTool.render(invalid)}`,
        ),
      ],
    };
  },
};

const diagnoseLink: McpPrompt = {
  name: 'diagnose_link',
  title: 'Diagnose a link',
  description: "Checks why a link does not behave as expected: its configuration, its clicks of the last 7 days, and where its rules send typical visitors.",
  arguments: [{ name: 'slug', description: 'the slug in /c/{slug} or /l/{slug}', required: true }],
  keyed: true,
  async get(args, deps, principal) {
    const slug = args.slug ?? '';
    if (!new RegExp(SLUG_PATTERN).test(slug)) throw fieldError('slug', 'must be a link slug');
    const link = await getLinkBySlug(deps, principal!.orgId, slug);
    const week = daysEndingOn(utcDayOf(deps.clock()), 7);
    const clicks = (await clicksSummary(deps, principal!.orgId, week, 'link')).rows.find((row) => row.key === link.id) ?? { clicks: 0, dropped: 0 };
    const smart = link.kind === 'smart';
    return {
      description: `Diagnosis of ${link.url}`,
      messages: [
        say(
          `Diagnose my link ${link.url}. Check in this order: its status (paused links answer 404), expiry and click cap (410), ` +
            'a custom domain that is not verified (domain_status, domain_note), the destination, ' +
            (smart
              ? 'then the rules: call test_smart_link_route with typical visitors (an iPhone in the US, an Android phone in Germany, a desktop browser, an in-app browser) and say where each goes and why. '
              : 'then the landing URLs it is used with (a tracking link follows the url parameter of each click). ') +
            'Look at invalid_clicks if the traffic looks wrong, and search_docs for any behaviour you are unsure of. ' +
            'Say what is wrong and the exact change to make (set_link_status or update_smart_link_routing), but make no change before I confirm.\n\n' +
            `Clicks in the last 7 days (${week.from} to ${week.to}): ${clicks.clicks} counted, ${clicks.dropped} dropped as bot, invalid or blocked.\n\n` +
            block('The link:', link),
        ),
      ],
    };
  },
};

const writeSmartLinkRules: McpPrompt = {
  name: 'write_smart_link_rules',
  title: 'Write smart-link routing rules',
  description: 'Writes a smart-link rule set for a routing goal, from the rule schema of the documentation.',
  arguments: [{ name: 'goal', description: 'where visitors should go, e.g. "iPhones to the App Store, Germany to the German shop, everyone else to the home page"', required: true }],
  keyed: false,
  async get(args) {
    const goal = args.goal?.trim();
    if (!goal) throw fieldError('goal', 'is required');
    const doc = (await docsIndex()).doc('smart-links.md');
    if (!doc) throw new Error('docs/smart-links.md is missing from this installation');
    return {
      description: 'A rule set for a smart link',
      messages: [
        say(
          `Write a smart-link rule set (version 1) for this goal: ${goal}\n\nFollow the rule schema below exactly; rules are tried in order and the first match wins, so put the narrowest first. ` +
            'Give the rule set as JSON and explain each rule in a line. If I have given an API key, offer to check it with test_smart_link_route and apply it with update_smart_link_routing.',
        ),
        { role: 'user', content: { type: 'resource', resource: { uri: `docs://${doc.name}`, mimeType: 'text/markdown', text: doc.text } } },
      ],
    };
  },
};

export const PROMPTS: readonly McpPrompt[] = [writeSmartLinkRules, weeklyCampaignReview, diagnoseLink];

