import { waitForClick } from '../../tracking/click-arrival';
import { findClickById } from '../attribution.repo';
import { CLICK_ID_PATTERN } from '../link-params';
import { DAY_MS, DEVICE_CLOCK_TOLERANCE_MS, fromClick, windowBefore, type Tier } from './tier';

/** 1. CLICK_ID: the launch deep link's svc_click_id names a click of this organization inside the click lookback. */
export const clickIdTier: Tier = {
  method: 'CLICK_ID',
  async match({ deps, input }) {
    const clickId = input.clickId;
    if (!clickId || !CLICK_ID_PATTERN.test(clickId)) return null;
    const days = input.settings.clickLookbackDays;
    const find = () => findClickById(deps.db, input.orgId, clickId, windowBefore(input, days * DAY_MS, DEVICE_CLOCK_TOLERANCE_MS));
    // A web landing page installs moments after its redirect, before the click's batch is written.
    const click = deps.clock ? await waitForClick({ clock: deps.clock, ...deps.clickWait }, clickId, find) : await find();
    if (!click) return null;
    return fromClick('CLICK_ID', input, click, { signals: ['click_id'], window: { days } });
  },
};
