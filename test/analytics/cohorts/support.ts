/**
 * Rows the cohort report reads, written straight into storage as their modules store them: the
 * reporting settings, exchange rates, partners and install countries included (their endpoints
 * are tested on their own).
 */
import type { Db, Queryable } from '../../../src/db/db';
import { createOrganization } from '../../../src/auth/accounts.service';
import { newId } from '../../../src/shared/ids';
import { insertApp, insertCampaign } from '../../support/fixtures';
import { hashedDeviceId } from '../../support/sdk-fixtures';

/** An organization (a new one, or `input.orgId`) with its reporting zone and currency, and an app named Puzzle. */
export async function reportingOrg(db: Db, input: { timezone?: string; currency?: string; orgId?: string } = {}) {
  const orgId = input.orgId ?? (await createOrganization(db, `Cohorts ${newId()}`));
  await db.query('UPDATE organizations SET timezone = $2, currency = $3 WHERE id = $1', [orgId, input.timezone ?? 'UTC', input.currency ?? 'USD']);
  const { appId } = await insertApp(db, orgId);
  await db.query('UPDATE apps SET name = $2 WHERE id = $1', [appId, 'Puzzle']);
  return { orgId, appId };
}

export async function campaign(db: Db, orgId: string, input: { name: string; partner?: string | null; appId?: string }) {
  const { campaignId } = await insertCampaign(db, orgId, { appId: input.appId });
  await db.query('UPDATE campaigns SET name = $2, partner = $3 WHERE id = $1', [campaignId, input.name, input.partner ?? null]);
  return campaignId;
}

export async function install(
  db: Queryable,
  input: {
    orgId: string;
    appId: string;
    at: string;
    campaignId?: string | null;
    country?: string | null;
    platform?: string;
    method?: string;
    reattribution?: boolean;
    uninstalledAt?: string | null;
  },
): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO installs (id, org_id, app_id, device_id_hash, platform, installed_at, attribution_method, campaign_id, is_reattribution, attributed_at, country, uninstalled_at)
     VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7, $8, $9, $6::timestamptz, $10, $11::timestamptz)`,
    [
      id, input.orgId, input.appId, hashedDeviceId(), input.platform ?? 'android', input.at,
      input.method ?? (input.campaignId ? 'CLICK_ID' : 'ORGANIC'), input.campaignId ?? null, input.reattribution ?? false,
      input.country ?? null, input.uninstalledAt ?? null,
    ],
  );
  return id;
}

export async function event(
  db: Queryable,
  input: { orgId: string; appId: string; installId: string | null; name: string; at: string; value?: number | null; currency?: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO events (id, org_id, app_id, install_id, device_id_hash, name, value, currency, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz)`,
    [newId(), input.orgId, input.appId, input.installId, hashedDeviceId(), input.name, input.value ?? null, input.currency ?? null, input.at],
  );
}

export async function cost(db: Queryable, input: { orgId: string; campaignId: string; day: string; spend: number; currency?: string }): Promise<void> {
  await db.query('INSERT INTO costs (id, org_id, campaign_id, day, spend, currency) VALUES ($1, $2, $3, $4::date, $5, $6)', [
    newId(), input.orgId, input.campaignId, input.day, input.spend, input.currency ?? 'USD',
  ]);
}

export async function rate(db: Queryable, input: { orgId: string; day: string; currency: string; rate: number }): Promise<void> {
  await db.query('INSERT INTO fx_rates (id, org_id, day, currency, rate) VALUES ($1, $2, $3::date, $4, $5)', [newId(), input.orgId, input.day, input.currency, input.rate]);
}

/** A clock fixed at an instant. */
export const at = (iso: string) => () => new Date(iso);

/** The worked example of docs/reports.md, "Cohorts": three installs, their events, a cost row and two rates. */
export async function workedExample(db: Db, orgId?: string) {
  const { orgId: org, appId } = await reportingOrg(db, { timezone: 'Europe/Berlin', currency: 'EUR', orgId });
  const spring = await campaign(db, org, { name: 'Spring', partner: 'meta', appId });
  await rate(db, { orgId: org, day: '2026-03-01', currency: 'USD', rate: 0.9 });
  await rate(db, { orgId: org, day: '2026-03-14', currency: 'USD', rate: 0.5 });
  await cost(db, { orgId: org, campaignId: spring, day: '2026-03-10', spend: 30, currency: 'EUR' });
  const base = { orgId: org, appId };

  const a = await install(db, { ...base, campaignId: spring, at: '2026-03-10T08:00:00Z' });
  await event(db, { ...base, installId: a, name: 'session_start', at: '2026-03-10T08:01:00Z' });
  await event(db, { ...base, installId: a, name: 'purchase', value: 5, currency: 'EUR', at: '2026-03-11T10:00:00Z' });
  await event(db, { ...base, installId: a, name: 'session_start', at: '2026-03-17T19:00:00Z' });

  const b = await install(db, { ...base, campaignId: spring, at: '2026-03-09T23:30:00Z' });
  await event(db, { ...base, installId: b, name: 'session_start', at: '2026-03-10T23:10:00Z' });
  await event(db, { ...base, installId: b, name: 'purchase', value: 10, currency: 'USD', at: '2026-03-13T12:00:00Z' });

  const c = await install(db, { ...base, at: '2026-03-10T12:00:00Z', uninstalledAt: '2026-03-12T12:00:00Z' });
  await event(db, { ...base, installId: c, name: 'purchase', value: 2, currency: 'GBP', at: '2026-03-10T12:05:00Z' });
  await event(db, { ...base, installId: c, name: 'uninstall', at: '2026-03-12T12:00:00Z' });
  await event(db, { ...base, installId: null, name: 'purchase', value: 100, currency: 'EUR', at: '2026-03-10T13:00:00Z' });
  return { orgId: org, appId, spring };
}
