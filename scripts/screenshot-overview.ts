/**
 * npx bun scripts/screenshot-overview.ts [out.png]     (default docs/overview.png)
 *
 * The README's picture of the overview: a real server on a scratch embedded store, a sign-up, a
 * tracking link, clicks over the last 15 minutes posted through edge ingest (each with its own
 * time), a few conversions, then Debian's Chromium (playwright-core) at 1440 x 900.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = join(import.meta.dir, '..');
const out = process.argv[2] ?? join(ROOT, 'docs', 'overview.png');
const port = 3000 + Math.floor(Math.random() * 2000) + 2000;
const base = `http://localhost:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-screenshot-'));
const ingestSecret = 'screenshot-ingest-secret-0123456789';

const server = Bun.spawn([process.execPath, join(ROOT, 'src', 'main.ts')], {
  cwd: ROOT,
  env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), DATA_DIR: dataDir, RATE_LIMIT: 'off', INGEST_SECRET: ingestSecret },
  stdout: 'ignore',
  stderr: 'inherit',
});

try {
  for (let i = 0; ; i++) {
    if ((await fetch(`${base}/api/health`).catch(() => null))?.ok) break;
    if (i > 600) throw new Error('the server did not start');
    await Bun.sleep(100);
  }
  const json = (cookie: string) => ({ 'content-type': 'application/json', origin: base, cookie });
  const registered = await fetch(`${base}/register`, {
    method: 'POST',
    headers: json(''),
    body: JSON.stringify({ email: 'marketing@example.com', password: 'correct horse battery', organization: 'Example Shop' }),
  });
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  await fetch(`${base}/api/dashboard/links`, { method: 'POST', headers: json(cookie), body: JSON.stringify({ slug: 'spring-sale', destination: 'https://shop.example.com/spring' }) });
  const key = (await (await fetch(`${base}/api/dashboard/keys`, { method: 'POST', headers: json(cookie), body: JSON.stringify({ name: 'Server' }) })).json()) as { api_key: string };

  // Clicks in each of the last 15 minutes, as an edge worker posts them with their own times.
  const now = Date.now();
  const clickIds: string[] = [];
  for (let minute = 14; minute >= 0; minute--) {
    const count = Math.round(18 + 10 * Math.sin(minute / 2) + (14 - minute) * 1.5);
    const events = Array.from({ length: count }, (_, i) => {
      const clickId = `shot${minute}x${i}${Math.random().toString(36).slice(2, 8)}`;
      clickIds.push(clickId);
      return {
        slug: 'spring-sale',
        click_id: clickId,
        ts: new Date(now - minute * 60_000 - Math.floor(Math.random() * 50_000)).toISOString(),
        ip: `203.0.113.${(i % 250) + 1}`,
        user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      };
    });
    const body = JSON.stringify({ events });
    const signature = createHmac('sha256', ingestSecret).update(body).digest('hex');
    const res = await fetch(`${base}/api/ingest/clicks`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-signature': signature }, body });
    if (!res.ok) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  }
  for (const clickId of clickIds.slice(-6)) {
    await fetch(`${base}/api/v1/conversions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.api_key}` },
      body: JSON.stringify({ click_id: clickId, event: 'purchase', value: 49, currency: 'EUR' }),
    });
  }

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addCookies([{ name: 'svc_session', value: cookie.slice('svc_session='.length), url: base }]);
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.locator('[data-stream-status]', { hasText: 'Live' }).waitFor();
  await page.locator('#minute-chart canvas').waitFor();
  await page.screenshot({ path: out });
  await browser.close();
  console.log(`wrote ${out}`);
} finally {
  server.kill('SIGTERM');
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
