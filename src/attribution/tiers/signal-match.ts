import type { ClickTouch } from '../attribution.model';
import { compareDeviceType, compareOsVersion, sameOsFamily } from '../device-signals';
import type { TierContext } from './tier';

/** A click that shares the install's IP and OS family, with the signals that agreed. */
export interface SignalMatch {
  click: ClickTouch;
  signals: string[];
  /** Before recency and ambiguity: 0.6 for IP and OS family, +0.2 for the OS version, +0.1 for the device type. */
  score: number;
}

/**
 * Clicks from the same IP and OS family whose OS version and device type, where both sides
 * know them, agree. A known disagreement means another device behind the same address.
 */
export function compatibleClicks(context: TierContext, clicks: readonly ClickTouch[]): SignalMatch[] {
  const matches: SignalMatch[] = [];
  for (const click of clicks) {
    if (!sameOsFamily(context.osFamily, click.osFamily)) continue;
    const version = compareOsVersion(context.input.osVersion, click.osVersion, click.osFamily);
    const deviceType = compareDeviceType(context.deviceType, click.deviceType);
    if (version === 'mismatch' || deviceType === 'mismatch') continue;
    const signals = ['ip', 'os_family'];
    let score = 0.6;
    if (version === 'match') {
      signals.push('os_version');
      score += 0.2;
    }
    if (deviceType === 'match') {
      signals.push('device_type');
      score += 0.1;
    }
    matches.push({ click, signals, score });
  }
  return matches;
}

/** Several campaigns reaching the same address in the window split the confidence between them. */
export function distinctCampaigns(matches: readonly SignalMatch[]): number {
  return Math.max(1, new Set(matches.map((m) => m.click.campaignId ?? '')).size);
}
