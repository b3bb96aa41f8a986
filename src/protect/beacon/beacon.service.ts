import type { Db } from '../../db/db';
import { notFound } from '../../http/errors';
import type { Clock } from '../../shared/ids';
import { isFreshClickId, waitForClick, type ClickWaitTiming } from '../../tracking/click-arrival';
import { beaconSignals } from './beacon-signals';
import type { BeaconRequest } from './beacon.model';
import {
  findBeaconClick,
  fingerprintIpCount,
  lockBeaconClick,
  lockFingerprint,
  mergeBeacon,
  unflaggedFingerprintClicks,
  type BeaconClick,
  type BeaconFields,
} from './beacon.repo';
import { setClickRisks } from '../scoring/click-risk.repo';
import { FINGERPRINT_REUSE, replaceFamily, riskOf, type ClickRisk } from '../../tracking/risk/risk-signals';

/** The landing-page beacon (docs/protect.md): stored per click, then the click rescored. */
export interface BeaconDeps {
  db: Db;
  clock: Clock;
  timing?: ClickWaitTiming;
  sleep?: (ms: number) => Promise<void>;
}

/** `applied`: the click was found and rescored; `pending`: stored until its click lands. */
export type BeaconOutcome = 'applied' | 'pending';

function beaconFields(request: BeaconRequest): BeaconFields {
  return {
    fingerprint: request.fingerprint ?? null,
    screen: request.screen ?? null,
    timezone: request.timezone ?? null,
    languages: request.languages ?? null,
    webdriver: request.webdriver ?? null,
    touch: request.touch ?? null,
    dwell_ms: request.dwell_ms ?? null,
    scroll: request.scroll ?? null,
  };
}

/**
 * Records a beacon for the click it names. A click id minted moments ago is waited for as
 * conversions wait; if it is still not written, the beacon waits in storage for the pending pass
 * (pending-beacons.ts). Any other unknown id is 404, another organization's click included.
 */
export async function recordBeacon(deps: BeaconDeps, request: BeaconRequest): Promise<BeaconOutcome> {
  const clickId = request.click_id;
  const fresh = isFreshClickId(clickId, deps.clock().getTime(), deps.timing);
  const click = await waitForClick(deps, clickId, () => findBeaconClick(deps.db, clickId));
  const fields = beaconFields(request);
  if (click) {
    await applyBeacon(deps, click, fields);
    return 'applied';
  }
  if (!fresh) throw notFound('click not found');
  await mergeBeacon(deps.db, clickId, fields, null, deps.clock());
  return 'pending';
}

/**
 * Merges the beacon into its click's row and rescores the click, in one transaction. The click
 * family's reasons are kept; the beacon family's are found again from the merged row. A verified
 * crawler's click (is_bot) keeps its score of 0.
 */
export async function applyBeacon({ db, clock }: Pick<BeaconDeps, 'db' | 'clock'>, click: BeaconClick, fields: BeaconFields): Promise<void> {
  const now = clock();
  const since = new Date(now.getTime() - FINGERPRINT_REUSE.windowMs);
  await db.transaction(async (tx) => {
    if (fields.fingerprint !== null) await lockFingerprint(tx, click.org_id, fields.fingerprint);
    const locked = (await lockBeaconClick(tx, click.id)) ?? click;
    const merged = await mergeBeacon(tx, locked.id, fields, { orgId: locked.org_id, ip: locked.ip }, now);
    if (locked.is_bot) return;
    const reused = fields.fingerprint !== null && (await fingerprintIpCount(tx, locked.org_id, fields.fingerprint, since)) >= FINGERPRINT_REUSE.ips;
    const found = beaconSignals(merged, locked.country);
    // Once a click had fingerprint_reuse it keeps it: the IPs that showed it may age out of the window.
    if (reused || locked.risk_reasons.includes('fingerprint_reuse')) found.push('fingerprint_reuse');
    const risk = riskOf(replaceFamily(locked.risk_reasons, 'beacon', found));
    const updates: (ClickRisk & { id: string })[] = [];
    if (!sameReasons(locked.risk_reasons, risk.risk_reasons)) updates.push({ id: locked.id, ...risk });
    if (reused) {
      for (const other of await unflaggedFingerprintClicks(tx, locked.org_id, fields.fingerprint!, since, locked.id)) {
        updates.push({ id: other.id, ...riskOf([...other.risk_reasons, 'fingerprint_reuse']) });
      }
    }
    await setClickRisks(tx, locked.org_id, updates);
  });
}

const sameReasons = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((reason, index) => reason === b[index]);
