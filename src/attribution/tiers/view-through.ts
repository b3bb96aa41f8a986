import { DAY_MS, HOUR_MS, fromImpression, recency, round3, type Tier } from './tier';

/** The longest window whose UTC days are hashed: a year covers any sensible setting. */
const MAX_DAYS = 366;

/** The UTC days a window touches, oldest first: the pixel hashed each impression's IP with its day. */
export function utcDays(from: Date, to: Date): Date[] {
  const days: Date[] = [];
  const first = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  for (let day = first; day <= to.getTime() && days.length < MAX_DAYS; day += DAY_MS) days.push(new Date(day));
  return days;
}

/** 6. VIEW_THROUGH: an impression with the install's IP-day hash inside the view-through window. */
export const viewThroughTier: Tier = {
  method: 'VIEW_THROUGH',
  async match(context) {
    const { input } = context;
    const hours = input.settings.viewThroughWindowHours;
    if (hours <= 0) return null;
    const impression = (await context.signals())?.viewImpression;
    if (!impression) return null;
    const confidence = round3(0.5 * recency(input, impression.createdAt, hours * HOUR_MS));
    return fromImpression('VIEW_THROUGH', input, impression, { signals: ['ip_day_hash'], window: { hours }, confidence });
  },
};
