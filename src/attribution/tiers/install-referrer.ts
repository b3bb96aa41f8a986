import { findClickById } from '../attribution.repo';
import { DAY_MS, DEVICE_CLOCK_TOLERANCE_MS, fromClick, windowBefore, type Tier } from './tier';

/** 2. INSTALL_REFERRER: the Android install referrer carries the svc_click_id our store redirect put there. */
export const installReferrerTier: Tier = {
  method: 'INSTALL_REFERRER',
  async match({ deps, input, referrer }) {
    if (!referrer.clickId) return null;
    const days = input.settings.clickLookbackDays;
    const click = await findClickById(deps.db, input.orgId, referrer.clickId, windowBefore(input, days * DAY_MS, DEVICE_CLOCK_TOLERANCE_MS));
    if (!click) return null;
    return fromClick('INSTALL_REFERRER', input, click, { signals: ['install_referrer.svc_click_id'], window: { days } });
  },
};
