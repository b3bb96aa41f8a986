import { findClickByGclid } from '../attribution.repo';
import { DAY_MS, DEVICE_CLOCK_TOLERANCE_MS, fromClick, windowBefore, type Tier } from './tier';

const GCLID_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/** 3. GCLID: the request's gclid (or the referrer's) matches the most recent click that carried it. */
export const gclidTier: Tier = {
  method: 'GCLID',
  async match({ deps, input, referrer }) {
    const fromRequest = input.gclid && GCLID_PATTERN.test(input.gclid) ? input.gclid : null;
    const gclid = fromRequest ?? referrer.gclid;
    if (!gclid) return null;
    const days = input.settings.clickLookbackDays;
    const click = await findClickByGclid(deps.db, input.orgId, gclid, windowBefore(input, days * DAY_MS, DEVICE_CLOCK_TOLERANCE_MS));
    if (!click) return null;
    return fromClick('GCLID', input, click, { signals: [fromRequest ? 'gclid' : 'install_referrer.gclid'], window: { days } });
  },
};
