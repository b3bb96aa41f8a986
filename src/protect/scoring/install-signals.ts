import type { Db } from '../../db/db';
import { rescoreClick } from './click-risk.repo';
import { CLICK_TO_INSTALL, type ClickRisk, type RiskSignal } from '../../tracking/risk/risk-signals';

/** click_to_install_fast / _slow from the time between the click and the install (docs/protect.md). */
export function installSignals(clickAt: Date, installedAt: Date): RiskSignal[] {
  const elapsed = installedAt.getTime() - clickAt.getTime();
  if (elapsed < CLICK_TO_INSTALL.fastBelowMs) return ['click_to_install_fast'];
  if (elapsed > CLICK_TO_INSTALL.slowAboveMs) return ['click_to_install_slow'];
  return [];
}

/** Scores the click an install was attributed to, by the install's time. */
export function scoreInstalledClick(db: Db, install: { orgId: string; clickId: string; installedAt: Date }): Promise<ClickRisk | null> {
  return rescoreClick(db, install.orgId, install.clickId, 'install', (click) => installSignals(new Date(click.created_at), install.installedAt));
}
