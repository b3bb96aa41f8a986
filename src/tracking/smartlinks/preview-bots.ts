import { isbot } from 'isbot';
import { setBounded } from '../../shared/cache';

/**
 * Link-preview agents by name, on top of isbot: a shared link must unfurl even if isbot's list
 * changes. iMessage sends `facebookexternalhit/1.1 Facebot Twitterbot/1.0`. Names are matched
 * narrowly (Pinterestbot, not Pinterest) so in-app browsers that carry an app's name stay people.
 */
const PREVIEW_AGENTS =
  /facebookexternalhit|\bfacebot\b|twitterbot|linkedinbot|slackbot|discordbot|telegrambot|^whatsapp\/|pinterest\/0\.|pinterestbot|redditbot|skypeuripreview|applebot|google-inspectiontool|vkshare|embedly/i;

/** Verdicts per distinct user agent: isbot's pattern is long, and the same agents come again and again. */
const verdicts = new Map<string, boolean>();
const VERDICT_LIMIT = 5000;
const CACHED_AGENT_LENGTH = 1024;

/** A crawler or link-preview bot: it gets the preview page rather than being routed. */
export function isPreviewBot(userAgent: string | null | undefined): boolean {
  if (!userAgent) return false;
  const known = verdicts.get(userAgent);
  if (known !== undefined) return known;
  const verdict = PREVIEW_AGENTS.test(userAgent) || isbot(userAgent);
  if (userAgent.length <= CACHED_AGENT_LENGTH) {
    setBounded(verdicts, VERDICT_LIMIT, userAgent, verdict);
  }
  return verdict;
}
