import { HOUR_MS, fromClick, fromImpression, recency, round3, type Tier } from './tier';

/**
 * 7. HOUSEHOLD: a click or impression from the same /24 (IPv4) or /48 (IPv6) inside the household
 * window: a TV app installed on the set that showed the ad, or by someone who clicked on a phone
 * at home. A click there outranks an impression, as it does in the waterfall.
 */
export const householdTier: Tier = {
  method: 'HOUSEHOLD',
  async match(context) {
    const { input } = context;
    const hours = input.settings.householdWindowHours;
    if (hours <= 0) return null;
    const touches = await context.signals();
    if (!touches) return null;
    const windowMs = hours * HOUR_MS;
    if (touches.householdClick) {
      const confidence = round3(0.35 * recency(input, touches.householdClick.createdAt, windowMs));
      return fromClick('HOUSEHOLD', input, touches.householdClick, { signals: ['household_hash'], window: { hours }, confidence });
    }
    if (touches.householdImpression) {
      const confidence = round3(0.25 * recency(input, touches.householdImpression.createdAt, windowMs));
      return fromImpression('HOUSEHOLD', input, touches.householdImpression, { signals: ['household_hash'], window: { hours }, confidence });
    }
    return null;
  },
};
