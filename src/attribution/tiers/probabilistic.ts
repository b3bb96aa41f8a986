import { HOUR_MS, fromClick, recency, round3, type Tier } from './tier';
import { compatibleClicks, distinctCampaigns } from './signal-match';

/** 5. PROBABILISTIC: any click from the same IP and OS family (version and device type where known) in the window. */
export const probabilisticTier: Tier = {
  method: 'PROBABILISTIC',
  async match(context) {
    const hours = context.input.settings.probabilisticWindowHours;
    if (hours <= 0 || !context.osFamily) return null;
    const from = context.input.at.getTime() - hours * HOUR_MS;
    const inWindow = ((await context.signals())?.ipClicks ?? []).filter((c) => c.createdAt.getTime() >= from);
    const matches = compatibleClicks(context, inWindow);
    const best = matches[0];
    if (!best) return null;
    const confidence = round3((best.score * recency(context.input, best.click.createdAt, hours * HOUR_MS)) / distinctCampaigns(matches));
    return fromClick('PROBABILISTIC', context.input, best.click, {
      signals: best.signals,
      window: { hours },
      confidence,
      extra: { candidates: matches.length },
    });
  },
};
