/**
 * Installs and events over several days for the retention tests: the events' ids (their day of
 * storage, which retention goes by) are spread over the legacy partition, day partitions ahead and
 * the default partition, independently of when the events occurred, so the events of one install
 * and local day are split between rows that go and rows that stay.
 */
import { ulid } from 'ulid';
import { cohortReport } from '../../src/analytics/cohorts/cohorts.service';
import type { CohortQueryText, CohortReport } from '../../src/analytics/cohorts/cohorts.model';
import type { Mirror } from '../../src/analytics/mirror/mirror';
import type { Db } from '../../src/db/db';
import { utcDayStart } from '../../src/partitions/day-range';
import { hashedDeviceId } from '../support/sdk-fixtures';
import { campaign, install, rate, reportingOrg } from '../analytics/cohorts/support';

const DAY = 86_400_000;
const HOUR = 3_600_000;
export const today = utcDayStart(new Date());
/** `hours` into the UTC day `offset` days from today. */
export const dayAt = (offset: number, hours = 12) => today + offset * DAY + hours * HOUR;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A small deterministic generator, so a failure repeats. */
export function seeded(seed: number) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return { next, pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]! };
}

export interface EventInput {
  orgId: string;
  appId: string;
  installId: string | null;
  /** The device the event names: its install's, unless the app was reinstalled. */
  device: string;
  name: string;
  occurredAt: number;
  /** When it was stored: its id's time. */
  storedAt: number;
  value?: number | null;
  currency?: string | null;
}

export async function storeEvent(db: Db, input: EventInput): Promise<void> {
  await db.query(
    `INSERT INTO events (id, org_id, app_id, install_id, device_id_hash, name, value, currency, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz)`,
    [ulid(input.storedAt), input.orgId, input.appId, input.installId, input.device, input.name, input.value ?? null, input.currency ?? null, new Date(input.occurredAt).toISOString()],
  );
}

const deviceOf = async (db: Db, installId: string) =>
  (await db.query<{ device_id_hash: string }>('SELECT device_id_hash FROM installs WHERE id = $1', [installId]))[0]!.device_id_hash;

/** What an install can be, for every dimension the cohort report groups or filters by. */
interface InstallShape {
  day: number;
  hours: number;
  campaign: number | null;
  country: string | null;
  platform: string;
  reattribution?: boolean;
  /** Its events name another device than the install (an app reinstalled keeps its install id). */
  otherDevice?: boolean;
}

const NAMES = ['session_start', 'session_start', 'level_up', 'purchase', 'purchase', 'ad_revenue', 'uninstall', 'subscription_renewed', 'subscription_refunded'];
const CURRENCIES = ['USD', 'EUR', 'GBP', null];

/**
 * An organization in `timezone` with two campaigns, installs of every shape on three install days
 * (days -12 to -10), and their events on cohort days 0 to 5, each stored on a day of `storedDays`.
 */
export async function cohortWorld(db: Db, input: { timezone: string; currency: string; seed: number; storedDays: readonly number[]; scale?: number }) {
  const { orgId, appId } = await reportingOrg(db, { timezone: input.timezone, currency: input.currency });
  const campaigns = [await campaign(db, orgId, { name: 'Spring', partner: 'meta', appId }), await campaign(db, orgId, { name: 'Video', partner: 'tiktok', appId })];
  await rate(db, { orgId, day: isoDay(dayAt(-40)), currency: input.currency === 'USD' ? 'EUR' : 'USD', rate: 1.25 });
  const random = seeded(input.seed);
  const shapes: InstallShape[] = [
    { day: -12, hours: 3, campaign: 0, country: 'US', platform: 'ios' },
    { day: -12, hours: 20, campaign: 0, country: 'DE', platform: 'android' },
    { day: -12, hours: 9, campaign: null, country: 'US', platform: 'android' },
    { day: -11, hours: 7, campaign: 1, country: 'US', platform: 'ios', reattribution: true },
    { day: -11, hours: 23, campaign: 1, country: null, platform: 'android' },
    { day: -11, hours: 1, campaign: 0, country: 'FR', platform: 'ios', otherDevice: true },
    { day: -10, hours: 15, campaign: 1, country: 'DE', platform: 'ios' },
    { day: -10, hours: 4, campaign: null, country: null, platform: 'android' },
  ];
  let events = 0;
  for (let copy = 0; copy < (input.scale ?? 1); copy++) {
    for (const shape of shapes) {
      const installedAt = dayAt(shape.day, shape.hours);
      const installId = await install(db, {
        orgId, appId, at: new Date(installedAt).toISOString(), campaignId: shape.campaign === null ? null : campaigns[shape.campaign]!,
        country: shape.country, platform: shape.platform, reattribution: shape.reattribution ?? false,
      });
      const device = shape.otherDevice ? hashedDeviceId() : await deviceOf(db, installId);
      for (let n = 0; n <= 5; n++) {
        if (random.next() < 0.25) continue;
        const count = 1 + Math.floor(random.next() * 3);
        for (let k = 0; k < count; k++) {
          const name = random.pick(NAMES);
          const value = name === 'purchase' ? 1 + Math.floor(random.next() * 20) : name === 'ad_revenue' ? 0.25 : name === 'subscription_renewed' ? 6 : name === 'subscription_refunded' ? -6 : null;
          await storeEvent(db, {
            orgId, appId, installId, device, name, value, currency: value === null ? null : random.pick(CURRENCIES),
            occurredAt: installedAt + n * DAY + Math.floor(random.next() * 20) * HOUR,
            storedAt: dayAt(random.pick(input.storedDays), Math.floor(random.next() * 24)),
          });
          events++;
        }
      }
    }
  }
  // Revenue of no known install: counted in no cohort, before or after.
  await storeEvent(db, { orgId, appId, installId: null, device: hashedDeviceId(), name: 'purchase', value: 99, currency: 'USD', occurredAt: dayAt(-11), storedAt: dayAt(input.storedDays[0]!) });
  return { orgId, appId, campaigns, events };
}

/** Queries over every grouping, filter and option, to compare a report before and after retention. */
export function cohortQueries(world: { appId: string; campaigns: string[] }): Partial<CohortQueryText>[] {
  return [
    { group_by: 'day' },
    { group_by: 'campaign,country', reattributions: 'include' },
    { group_by: 'partner,platform', activity: 'sessions' },
    { group_by: 'method,day' },
    { group_by: 'app', country: 'US' },
    { group_by: 'country', platform: 'ios', activity: 'sessions', reattributions: 'include' },
    { group_by: 'day', partner: 'organic' },
    { group_by: 'platform', partner: 'tiktok', reattributions: 'include' },
    { group_by: 'day', campaign_id: world.campaigns[0]!, app_id: world.appId },
  ];
}

/** The organization's reports for `queries`, install days -13 to -9 (in its zone), read from the mirror. */
export async function cohortReports(db: Db, mirror: Mirror, orgId: string, queries: Partial<CohortQueryText>[]): Promise<CohortReport[]> {
  const deps = { db, mirror, clock: () => new Date(dayAt(60)) };
  const reports: CohortReport[] = [];
  for (const query of queries) {
    reports.push(await cohortReport(deps, orgId, { from: isoDay(dayAt(-13)), to: isoDay(dayAt(-9)), days: '0,1,2,3,5,7', ...query }));
  }
  return reports;
}
