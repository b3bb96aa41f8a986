import type { Db } from '../../src/db/db';
import { riskOf, type RiskSignal } from '../../src/protect/risk-signals';
import type { TestApp } from '../support/app';
import { insertClick, type ClickOverrides } from '../support/clicks';

/**
 * Posts a beacon as navigator.sendBeacon does: the JSON as a `text/plain;charset=UTF-8` string.
 * `raw` sends a body as is; `headers` add to or replace the defaults.
 */
export function sendBeacon(t: TestApp, beacon: unknown, options: { raw?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  return t.request('/api/protect/beacon', {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', ...options.headers },
    body: options.raw ?? JSON.stringify(beacon),
  });
}

/**
 * A stored click with what enrichment gives it: the IP's country and the click family's reasons
 * (with their score). Returns its id.
 */
export async function riskClick(db: Db, click: ClickOverrides & { country?: string | null; reasons?: RiskSignal[] }): Promise<string> {
  const { country = 'CH', reasons = [], ...overrides } = click;
  const id = await insertClick(db, { ip: '198.51.100.7', ...overrides });
  const risk = riskOf(reasons);
  await db.query('UPDATE clicks SET country = $2, risk_score = $3, risk_reasons = $4::jsonb WHERE id = $1', [
    id,
    country,
    risk.risk_score,
    JSON.stringify(risk.risk_reasons),
  ]);
  return id;
}

export async function clickRisk(db: Db, id: string): Promise<{ risk_score: number; risk_reasons: string[] }> {
  const [row] = await db.query<{ risk_score: number; risk_reasons: string[] }>('SELECT risk_score, risk_reasons FROM clicks WHERE id = $1', [id]);
  if (!row) throw new Error(`no click ${id}`);
  return row;
}

export async function storedBeacon(db: Db, clickId: string): Promise<Record<string, unknown> | undefined> {
  const [row] = await db.query<Record<string, unknown>>('SELECT * FROM click_beacons WHERE click_id = $1', [clickId]);
  return row;
}

/** A beacon from a Zurich visitor that raises no signal for a click from a Swiss IP. */
export const CLEAN_BEACON = {
  screen: '390x844',
  timezone: 'Europe/Zurich',
  languages: 'de-CH,de,en',
  webdriver: false,
  touch: true,
  dwell_ms: 12_000,
  scroll: 60,
} as const;
