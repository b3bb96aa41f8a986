/**
 * npm run screenshots [-- out-dir]     (default docs/screenshots/)
 *
 * The pictures of docs/dashboard-looks.md and the README, made from the real thing so they stay
 * current: the server on a scratch DATA_DIR (embedded store), a demo organization seeded through
 * the public APIs (apps, campaigns with spend, tracking and smart links, a month of clicks posted
 * through edge ingest with their own times, installs through the SDK API, purchases), then
 * Debian's Chromium (playwright-core) on the main pages at 1440 and 375 px, light and dark.
 * Writes <page>-<width>-<scheme>.png; docs/dashboard-looks.md lists them.
 */
import { createHash, createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

const ROOT = join(import.meta.dir, '..');
const OUT = process.argv[2] ?? join(ROOT, 'docs', 'screenshots');
const PORT = 5000 + Math.floor(Math.random() * 2000);
const BASE = `http://localhost:${PORT}`;
const DATA_DIR = mkdtempSync(join(tmpdir(), 'svc-screenshots-'));
const INGEST_SECRET = 'screenshots-ingest-secret-0123456789';
const DAY_MS = 86_400_000;

const WIDTHS = [
  { name: '1440', viewport: { width: 1440, height: 900 } },
  { name: '375', viewport: { width: 375, height: 812 } },
] as const;
const SCHEMES = ['light', 'dark'] as const;

const UA = {
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  desktop: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36',
};
/** Consumer ISP addresses in a few countries, so the country breakdown has more than one row. */
const ADDRESSES = ['24.5.12.', '73.162.8.', '81.2.69.', '86.12.40.', '87.123.5.', '91.64.3.', '90.54.12.', '177.32.6.', '126.74.2.'];

/** A seeded random: the same demo every run, so a re-run changes only what the code changed. */
let seed = 44;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

async function call(path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<any> {
  const res = await fetch(`${BASE}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: { ...(init.json === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

async function startServer() {
  const server = Bun.spawn([process.execPath, join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(PORT), DATA_DIR, RATE_LIMIT: 'off', INGEST_SECRET, MIRROR_INTERVAL_MS: '500', TRACKING_URL: 'https://go.northwind.example' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  for (let i = 0; ; i++) {
    if ((await fetch(`${BASE}/api/health`).catch(() => null))?.ok) return server;
    if (server.exitCode !== null || i > 1200) throw new Error('the server did not start');
    await Bun.sleep(100);
  }
}

interface Demo {
  cookie: string;
  smartLinkId: string;
}

/** A growth team's month: two apps, three campaigns with daily spend, links, clicks, installs and purchases. */
async function seedDemo(): Promise<Demo> {
  const registered = await fetch(`${BASE}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: BASE },
    body: JSON.stringify({ email: 'growth@northwind.example', password: 'correct horse battery', organization: 'Northwind Outdoor' }),
  });
  if (registered.status !== 201) throw new Error(`sign-up answered ${registered.status}`);
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const session = { origin: BASE, cookie };
  const { api_key: apiKey } = await call('/api/dashboard/keys', { json: { name: 'Data warehouse' }, headers: session });
  await call('/api/dashboard/keys', { json: { name: 'Ad network postbacks', rate_limit_per_minute: 600 }, headers: session });
  const auth = { authorization: `Bearer ${apiKey}` };

  const ios = await call('/api/v1/apps', { json: { name: 'Northwind iOS', platform: 'ios', bundle_id: 'com.northwind.outdoor' }, headers: auth });
  const android = await call('/api/v1/apps', { json: { name: 'Northwind Android', platform: 'android', bundle_id: 'com.northwind.outdoor' }, headers: auth });
  const campaigns = [
    await call('/api/v1/campaigns', { json: { name: 'Spring sale', external_id: 'meta-2207', app_id: ios.id }, headers: auth }),
    await call('/api/v1/campaigns', { json: { name: 'Brand search', external_id: 'gads-5531', app_id: android.id }, headers: auth }),
    await call('/api/v1/campaigns', { json: { name: 'Creators, summer', external_id: 'tt-0918', app_id: ios.id }, headers: auth }),
  ];
  const links = [
    await call('/api/v1/links', { json: { slug: 'spring-sale', destination: 'https://northwind.example/spring', campaign_id: campaigns[0].id }, headers: auth }),
    await call('/api/v1/links', { json: { slug: 'brand-search', destination: 'https://northwind.example/', campaign_id: campaigns[1].id }, headers: auth }),
    await call('/api/v1/links', { json: { slug: 'creators', destination: 'https://northwind.example/creators', campaign_id: campaigns[2].id }, headers: auth }),
    await call('/api/v1/links', { json: { slug: 'newsletter-june', destination: 'https://northwind.example/journal/june' }, headers: auth }),
  ];
  const smart = await call('/api/v1/links', {
    json: {
      kind: 'smart',
      slug: 'get-the-app',
      destination: 'https://northwind.example/app',
      campaign_id: campaigns[0].id,
      rules: {
        version: 1,
        rules: [
          { name: 'iPhone', if: { os: ['ios'] }, then: { url: 'https://apps.apple.com/app/id6444444444' } },
          { name: 'Android', if: { os: ['android'] }, then: { url: 'https://play.google.com/store/apps/details?id=com.northwind.outdoor' } },
        ],
        fallback: { url: 'https://northwind.example/app' },
      },
    },
    headers: auth,
  });
  links.push(smart);

  // A month of clicks, more on recent days and a burst in the last 15 minutes for the live overview.
  const now = Date.now();
  const clicks: { id: string; slug: string; ua: keyof typeof UA; at: number }[] = [];
  for (let day = 29; day >= 0; day--) {
    const count = Math.round(30 + (29 - day) * 2 + 12 * Math.sin(day / 3));
    for (let i = 0; i < count; i++) clicks.push({ id: '', slug: pick(links).slug, ua: pick(['iphone', 'iphone', 'android', 'desktop'] as const), at: now - day * DAY_MS - Math.floor(random() * (day === 0 ? 3_600_000 : DAY_MS - 1_000_000)) - 1_000_000 });
  }
  for (let minute = 14; minute >= 0; minute--) {
    const count = Math.round(30 + 12 * Math.sin(minute / 2) + (14 - minute) * 2);
    for (let i = 0; i < count; i++) clicks.push({ id: '', slug: pick(links.slice(0, 3)).slug, ua: pick(['iphone', 'android', 'desktop'] as const), at: now - minute * 60_000 - Math.floor(random() * 50_000) });
  }
  clicks.forEach((click, index) => (click.id = `demo${index.toString(36).padStart(6, '0')}`));
  for (let i = 0; i < clicks.length; i += 500) {
    const events = clicks.slice(i, i + 500).map((click) => ({
      slug: click.slug,
      click_id: click.id,
      ts: new Date(click.at).toISOString(),
      ip: `${pick(ADDRESSES)}${1 + Math.floor(random() * 250)}`,
      user_agent: UA[click.ua],
    }));
    const body = JSON.stringify({ events });
    const signature = createHmac('sha256', INGEST_SECRET).update(body).digest('hex');
    const res = await fetch(`${BASE}/api/ingest/clicks`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-signature': signature }, body });
    if (!res.ok) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  }

  // The newsletter ran its course: paused, its clicks kept.
  await call(`/api/v1/links/${links[3].id}`, { method: 'PATCH', json: { status: 'paused' }, headers: auth });

  // One phone click in ten installs the app; one install in three buys.
  const phones = clicks.filter((click) => click.ua !== 'desktop' && click.slug !== 'newsletter-june');
  for (const [index, click] of phones.entries()) {
    if (index % 10 !== 0) continue;
    const app = click.ua === 'iphone' ? ios : android;
    await call('/api/sdk/v1/install', {
      json: {
        device_id: createHash('sha256').update(`device-${click.id}`).digest('hex'),
        platform: app.platform,
        click_id: click.id,
        installed_at: new Date(Math.min(now, click.at + 600_000)).toISOString(),
        app_version: '3.2.0',
      },
      headers: { 'x-sdk-key': app.sdk_key },
    });
    if (index % 30 === 0) {
      await call('/api/v1/conversions', { json: { click_id: click.id, event: 'purchase', value: pick([29, 49, 89, 129]), currency: 'USD', order_id: `order-${click.id}` }, headers: auth });
    }
  }

  const rows = campaigns.flatMap((campaign, at) =>
    Array.from({ length: 30 }, (_, back) => ({
      campaign_id: campaign.id,
      day: new Date(now - back * DAY_MS).toISOString().slice(0, 10),
      spend: Math.round((40 + at * 25 + random() * 30) * 100) / 100,
      currency: 'USD',
      impressions: 4000 + Math.floor(random() * 3000),
    })),
  );
  await call('/api/v1/costs', { json: { rows }, headers: auth });
  return { cookie, smartLinkId: smart.id };
}

/** The pages shot, each with what says it is drawn. */
/** `top`: the first screen only (the campaigns page runs long: its full height would be a megabyte). */
function pages(demo: Demo): { name: string; path: string; signedIn: boolean; top?: boolean; ready: (page: Page) => Promise<unknown> }[] {
  const heading = (page: Page) => page.getByRole('heading', { level: 1 }).waitFor();
  return [
    { name: 'overview', path: '/', signedIn: true, ready: (page) => page.locator('#minute-chart canvas').waitFor() },
    { name: 'links', path: '/links', signedIn: true, ready: heading },
    { name: 'smart-link', path: `/links/${demo.smartLinkId}`, signedIn: true, ready: heading },
    { name: 'campaigns', path: '/campaigns', signedIn: true, top: true, ready: (page) => page.locator('#pivot-chart canvas').waitFor() },
    { name: 'apps', path: '/apps', signedIn: true, ready: heading },
    { name: 'settings', path: '/settings', signedIn: true, ready: heading },
    { name: 'sign-in', path: '/login', signedIn: false, ready: heading },
  ];
}

const server = await startServer();
try {
  const demo = await seedDemo();
  // Reports read the analytics mirror: let it take in the month before the first picture.
  await Bun.sleep(3_000);
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    for (const scheme of SCHEMES) {
      for (const width of WIDTHS) {
        const context = await browser.newContext({ viewport: width.viewport, colorScheme: scheme, deviceScaleFactor: 1 });
        const page = await context.newPage();
        for (const shot of pages(demo)) {
          await context.clearCookies();
          if (shot.signedIn) await context.addCookies([{ name: 'svc_session', value: demo.cookie.slice('svc_session='.length), url: BASE }]);
          await page.goto(`${BASE}${shot.path}`);
          await shot.ready(page);
          const path = join(OUT, `${shot.name}-${width.name}-${scheme}.png`);
          await page.screenshot({ path, fullPage: !shot.top });
          console.log(`wrote ${path}`);
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
} finally {
  server.kill('SIGTERM');
  await server.exited;
  rmSync(DATA_DIR, { recursive: true, force: true });
}
