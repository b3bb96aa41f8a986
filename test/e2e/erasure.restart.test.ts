import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createPostgres } from '../support/db';
import { startServer, type RunningServer } from '../support/server';
import { eventually } from '../support/wait';

/**
 * An erasure request survives a crash of the node that was working on it, and the erased click
 * does not come back when the journal is replayed at the next start.
 */

setDefaultTimeout(240_000);
const BOOT_MS = 120_000;
const backends = ['pglite', ...(process.env.DATABASE_URL ? ['postgres'] : [])];
// Long enough that the first server dies, and the second has replayed its journal, between the
// two passes; short enough for a test.
const SWEEP = { ERASURE_SWEEP_SECONDS: '20' };

async function accountWithKey(base: string) {
  const registered = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email: `erase-${Date.now()}@example.com`, password: 'correct horse', organization: 'Erasure' }),
  });
  expect(registered.status).toBe(201);
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const key = await fetch(`${base}/api/dashboard/keys`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base, cookie }, body: JSON.stringify({ name: 'server' }) });
  expect(key.status).toBe(201);
  return { authorization: `Bearer ${((await key.json()) as { api_key: string }).api_key}`, 'content-type': 'application/json' };
}

for (const backend of backends) {
  describe(`erasure across a crash on ${backend}`, () => {
    test('a pending request is finished by the restarted node, and the replayed journal does not bring the click back', async () => {
      const env: Record<string, string> = { ...SWEEP };
      if (backend === 'postgres') env.DATABASE_URL = (await createPostgres({ migrated: false })).url;
      let server: RunningServer = await startServer(env, { timeoutMs: BOOT_MS });
      try {
        const base = () => `http://localhost:${server.port}`;
        const auth = await accountWithKey(base());
        const link = await fetch(`${base()}/api/v1/links`, { method: 'POST', headers: auth, body: JSON.stringify({ slug: 'erase-me', destination: 'https://shop.example.com/' }) });
        expect(link.status).toBe(201);
        const redirect = await fetch(`${base()}/c/erase-me`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Safari/604.1' } });
        expect(redirect.status).toBe(302);
        const clickId = new URL(redirect.headers.get('location')!).searchParams.get('svc_click_id')!;
        const storedClicks = async () => ((await (await fetch(`${base()}/api/v1/clicks?limit=1000`, { headers: auth })).json()) as { data: { id: string }[] }).data.map((c) => c.id);
        await eventually(async () => ((await storedClicks()).includes(clickId) ? true : undefined), { timeoutMs: 30_000 });

        const filed = await fetch(`${base()}/api/v1/privacy/erasure`, { method: 'POST', headers: auth, body: JSON.stringify({ click_id: clickId }) });
        expect(filed.status).toBe(202);
        const { id } = (await filed.json()) as { id: string };
        const state = async () => (await (await fetch(`${base()}/api/v1/privacy/erasure/${id}`, { headers: auth })).json()) as { status: string; counts: Record<string, number> };
        // The first pass ran; the sweep is still to come when the node dies.
        await eventually(async () => (!(await storedClicks()).includes(clickId) ? true : undefined), { timeoutMs: 30_000 });
        expect((await state()).status).toBe('pending');
        await server.stop('SIGKILL');

        server = await startServer(server.env, { dataDir: server.dataDir, timeoutMs: BOOT_MS });
        // The journal was replayed before the node served, and the sweep has not run yet.
        expect(await storedClicks()).not.toContain(clickId);
        expect((await state()).status).toBe('pending');
        const done = await eventually(async () => {
          const answer = await state();
          return answer.status === 'completed' ? answer : undefined;
        }, { timeoutMs: 60_000, everyMs: 200 });
        expect(done.counts).toMatchObject({ clicks: 1 });
        expect(await storedClicks()).not.toContain(clickId);
      } finally {
        await server.stop();
      }
    });
  });
}
