/**
 * bench:cohorts's data (bench/cohorts.ts), written once for both stores: 1,000,000 installs,
 * 20,000,000 SDK events and 10,000,000 clicks over 90 days (BENCH_SCALE scales them), 50
 * campaigns with their partners and daily costs, a EUR rate a day, reporting in Europe/Berlin.
 */
import { DUCKDB_SPELLING, POSTGRES_SPELLING, type SeedSpec } from './two-stores';

export const SCALE = Number(process.env.BENCH_SCALE ?? 1);
export const COUNTS = { installs: Math.round(1_000_000 * SCALE), events: Math.round(20_000_000 * SCALE), clicks: Math.round(10_000_000 * SCALE) };
export const CAMPAIGNS = 50;
export const DAYS = 90;
export const ORG = 'org_bench';
export const ZONE = 'Europe/Berlin';
const APPS = ['app_android', 'app_ios'];
export const FIRST_DAY = '2026-06-01';
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'BR', 'IN', 'JP', 'ES', 'IT', 'CA'];
const PARTNERS = ['google_ads', 'meta', 'tiktok'];


/** `CASE i % n WHEN 0 THEN a ...`: one of `values` by `x`. */
const pick = (x: string, values: readonly string[]) => `CASE ${x} % ${values.length} ${values.map((v, i) => `WHEN ${i} THEN '${v}'`).join(' ')} END`;

/**
 * The large tables over the integers `i`, in time order with ids that grow with time, as the
 * service writes them (ULIDs, 26 characters; the mirror copies rows in commit order). Install i
 * is installed at i/installs of the 90 days; event i happens at i/events of them, for the install
 * installed d days before it, d from 0 to 39 and mostly small (retention falls with time). One
 * event in 20 is a purchase (a third of them in EUR), one in 10 ad revenue, the rest session
 * starts. Every 51st install and click has no campaign (organic), every 25th install is a
 * re-engagement, every 7th was uninstalled, every 97th click was dropped as a bot.
 */
function seedSelects(spelling: { text: (x: string) => string; secs: (x: string) => string; div: (a: string, b: string) => string }): Record<string, SeedSpec> {
  const { text, secs, div } = spelling;
  const start = `TIMESTAMPTZ '${FIRST_DAY} 00:00:00+00'`;
  const window = DAYS * 86_400;
  const campaign = (x: string) => `CASE WHEN ${x} % 51 = 50 THEN NULL ELSE 'cmp_' || ${text(`${x} % 51`)} END`;
  const installedSecs = (k: string) => div(`(${k}) * ${window}`, String(COUNTS.installs));
  const eventSecs = div(`i * ${window}`, String(COUNTS.events));
  // d = floor(40 u^2) for u spread over [0, 1): most events in the first days after the install.
  const offsetDays = div('((i * 7919) % 1000) * ((i * 7919) % 1000) * 40', '1000000');
  const k = `greatest(0, ${div(`(${eventSecs} - (${offsetDays}) * 86400) * ${COUNTS.installs}`, String(window))})`;
  const installId = (x: string) => `'0' || lpad(${text(x)}, 25, '0')`;
  return {
    installs: {
      columns: 'id, install_key, org_id, app_id, device_id_hash, platform, country, installed_at, attribution_method, campaign_id, is_reattribution, attributed_at, uninstalled_at',
      select: `${installId('i')}, i + 1, '${ORG}', CASE WHEN i % 2 = 0 THEN '${APPS[0]}' ELSE '${APPS[1]}' END, 'd' || ${text('i')},
               CASE WHEN i % 2 = 0 THEN 'android' ELSE 'ios' END, ${pick('i', COUNTRIES)}, ${start} + ${secs(installedSecs('i'))},
               CASE WHEN i % 51 = 50 THEN 'ORGANIC' WHEN i % 3 = 0 THEN 'GCLID' ELSE 'CLICK_ID' END, ${campaign('i')}, i % 25 = 0,
               ${start} + ${secs(installedSecs('i'))},
               CASE WHEN i % 7 = 0 THEN ${start} + ${secs(`${installedSecs('i')} + (i % 30) * 86400 + 3600`)} END`,
    },
    events: {
      columns: 'id, org_id, app_id, install_id, install_key, device_id_hash, name, value, currency, occurred_at',
      select: `'1' || lpad(${text('i')}, 25, '0'), '${ORG}', CASE WHEN (${k}) % 2 = 0 THEN '${APPS[0]}' ELSE '${APPS[1]}' END, ${installId(k)}, (${k}) + 1, 'd' || ${text(k)},
               CASE WHEN i % 20 = 1 THEN 'purchase' WHEN i % 10 = 2 THEN 'ad_revenue' ELSE 'session_start' END,
               CASE WHEN i % 20 = 1 THEN (i % 50) + 0.99 WHEN i % 10 = 2 THEN (i % 7 + 1) * 0.01 END,
               CASE WHEN i % 20 = 1 AND i % 3 = 0 THEN 'EUR' WHEN i % 20 = 1 OR i % 10 = 2 THEN 'USD' END,
               ${start} + ${secs(eventSecs)}`,
    },
    clicks: {
      columns: 'id, org_id, link_id, campaign_id, created_at, next_hop_url, drop_reason, country, region, os_family, device_type, network',
      select: `'2' || lpad(${text('i')}, 25, '0'), '${ORG}', 'link_' || ${text('i % 500')}, ${campaign('i')}, ${start} + ${secs(div(`i * ${window}`, String(COUNTS.clicks)))},
               'https://shop.example.com/p', CASE WHEN i % 97 = 0 THEN 'bot' END, ${pick('i', COUNTRIES)}, NULL,
               ${pick('i', ['iOS', 'Android', 'Windows', 'Mac OS X'])}, ${pick('i', ['mobile', 'mobile', 'desktop', 'tablet'])}, ${pick('i', ['g', 's', 'x'])}`,
    },
  };
}

export const postgresSeed = seedSelects({ ...POSTGRES_SPELLING, div: (a, b) => `(${a}) / (${b})` });
export const duckSeed = seedSelects({ ...DUCKDB_SPELLING, div: (a, b) => `(${a}) // (${b})` });

export const dayOf = (offset: number) => new Date(Date.parse(`${FIRST_DAY}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

/** Campaigns with their partners, their costs a day, and a EUR rate a day: the same VALUES in both stores. */
export function smallRows(): string[] {
  const campaigns = Array.from({ length: CAMPAIGNS }, (_, c) => `('cmp_${c}', '${ORG}', 'Campaign ${c}', '${PARTNERS[c % PARTNERS.length]}')`);
  const costs: string[] = [];
  const rates: string[] = [];
  for (let d = 0; d < DAYS; d++) {
    for (let c = 0; c < CAMPAIGNS; c++) costs.push(`('k${c}_${d}', '${ORG}', 'cmp_${c}', DATE '${dayOf(d)}', ${100 + c * 3 + d}.25, 'USD')`);
    rates.push(`('fx${d}', '${ORG}', DATE '${dayOf(d)}', 'EUR', ${(1.05 + (d % 10) / 100).toFixed(2)}, 'USD')`);
  }
  return [
    `INSERT INTO campaigns (id, org_id, name, partner) VALUES ${campaigns.join(', ')}`,
    `INSERT INTO costs (id, org_id, campaign_id, day, spend, currency) VALUES ${costs.join(', ')}`,
    `INSERT INTO fx_rates (id, org_id, day, currency, rate, quote) VALUES ${rates.join(', ')}`,
  ];
}

export const POSTGRES_ONLY = [
  `INSERT INTO organizations (id, name, timezone, currency) VALUES ('${ORG}', 'Bench', '${ZONE}', 'USD')`,
  ...APPS.map((app, index) => `INSERT INTO apps (id, org_id, name, platform, sdk_key, sdk_key_hash) VALUES ('${app}', '${ORG}', 'App ${index}', '${index === 0 ? 'android' : 'ios'}', 'sk_${app}', 'hash_${app}')`),
];

