import type { Tier } from './tier';

/**
 * 8. SKAN: an iOS install nothing above matched, for an app with SKAdNetwork enabled. The
 * campaign is unknown now; it arrives later with the ad network's postback.
 */
export const skanTier: Tier = {
  method: 'SKAN',
  async match({ input }) {
    if (input.platform !== 'ios' || !input.settings.skanEnabled) return null;
    return {
      method: 'SKAN',
      campaignId: null,
      clickId: null,
      impressionId: null,
      deepLinkPath: null,
      confidence: null,
      evidence: { tier: 'SKAN', signals: ['platform', 'skan_enabled'] },
    };
  },
};
