/** Helpers of the protect tests: a dashboard account, a Google Ads connection, risky clicks, campaigns. */
import { expect } from 'bun:test';
import type { Db } from '../../src/db/db';
import type { RiskSignal } from '../../src/tracking/risk/risk-signals';
import { newId } from '../../src/shared/ids';
import { body, type TestApp } from '../support/app';
import { insertClick, type ClickOverrides } from '../support/clicks';
import { insertCampaign } from '../support/fixtures';
import type { FakeGoogleAds } from './sync/fake-google-ads';

export interface Account {
  cookie: string;
  orgId: string;
}

/** A new organization with one signed-in user. */
export async function registerAccount(t: TestApp): Promise<Account> {
  const res = await t.request('/register', { method: 'POST', json: { email: `u${newId().toLowerCase()}@example.com`, password: 'correct horse', organization: 'Acme' } });
  expect(res.status).toBe(201);
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, orgId: (await body(res)).org_id as string };
}

/** A customer id of ten digits no other test uses. */
export const freshCustomerId = () => String(1_000_000_000 + Math.floor(Math.random() * 8_999_999_999));

/** Connects the account to the fake with its valid credentials; answers the customer id (digits). */
export async function connectGoogleAds(t: TestApp, account: Account, fake: FakeGoogleAds, overrides: Record<string, unknown> = {}): Promise<string> {
  const customerId = freshCustomerId();
  const res = await t.request('/api/dashboard/integrations/google-ads', {
    method: 'PUT',
    headers: { cookie: account.cookie },
    json: {
      customer_id: customerId,
      developer_token: fake.credentials.developerToken,
      client_id: fake.credentials.clientId,
      client_secret: fake.credentials.clientSecret,
      refresh_token: fake.credentials.refreshToken,
      ...overrides,
    },
  });
  expect(res.status).toBe(200);
  return ((await body(res)).customer_id as string) ?? customerId;
}

export const sync = (t: TestApp, account: Account, headers: Record<string, string> = {}) =>
  t.request('/api/protect/sync', { method: 'POST', headers: { cookie: account.cookie, ...headers } });

const DAY_MS = 24 * 60 * 60 * 1000;
export const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

/** A click with a risk score, as the scoring steps would have stored it. */
export async function insertRiskyClick(db: Db, input: { orgId: string; ip: string; score: number; at?: Date; isBot?: boolean }): Promise<string> {
  return insertClick(db, {
    orgId: input.orgId, ip: input.ip, createdAt: input.at ?? daysAgo(1), isBot: input.isBot ?? false, riskScore: input.score, riskReasons: ['datacenter_ip'],
  });
}

/** A campaign with a Google Ads id (or none), active unless told. */
export async function insertAdCampaign(db: Db, orgId: string, input: { externalId?: string | null; status?: string } = {}): Promise<{ id: string; externalId: string | null }> {
  const externalId = input.externalId === undefined ? String(20_000_000_000 + Math.floor(Math.random() * 1_000_000_000)) : input.externalId;
  const { campaignId } = await insertCampaign(db, orgId, externalId === null ? {} : { externalId });
  if (input.status) await db.query('UPDATE campaigns SET status = $2 WHERE id = $1', [campaignId, input.status]);
  return { id: campaignId, externalId };
}

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
export function riskClick(db: Db, click: ClickOverrides & { reasons?: RiskSignal[] }): Promise<string> {
  const { country = 'CH', reasons = [], ...overrides } = click;
  return insertClick(db, { ip: '198.51.100.7', ...overrides, country, riskReasons: reasons });
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
