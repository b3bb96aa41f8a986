import { HOUR_MS, fromClick, recency, round3, type Tier } from './tier';
import { compatibleClicks, distinctCampaigns } from './signal-match';

/**
 * 4. DEFERRED_DEEPLINK: a click on a link with a deep link path, from the same IP and OS family,
 * inside a short window: the user tapped a deep link without the app and should land on that path.
 */
export const deferredDeeplinkTier: Tier = {
  method: 'DEFERRED_DEEPLINK',
  async match(context) {
    const hours = context.input.settings.deferredDeeplinkWindowHours;
    if (hours <= 0 || !context.osFamily) return null;
    const from = context.input.at.getTime() - hours * HOUR_MS;
    const inWindow = ((await context.signals())?.ipClicks ?? []).filter((c) => c.deepLinkPath && c.createdAt.getTime() >= from);
    const matches = compatibleClicks(context, inWindow);
    const best = matches[0];
    if (!best) return null;
    const confidence = round3((best.score * recency(context.input, best.click.createdAt, hours * HOUR_MS)) / distinctCampaigns(matches));
    return fromClick('DEFERRED_DEEPLINK', context.input, best.click, {
      signals: best.signals,
      window: { hours },
      confidence,
      extra: { candidates: matches.length },
    });
  },
};
