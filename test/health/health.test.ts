import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import postgres from 'postgres';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { openPglite } from '../../src/db/pglite';
import { openPostgres } from '../../src/db/postgres';
import { checkHealth } from '../../src/health/health.routes';
import { body, testApp } from '../support/app';
import { backends, createPostgres } from '../support/db';
import { expectSecurityHeaders } from '../support/http';

// PGlite boots, argon2 and whole-app instances are slow on a busy machine (the import above
// covers the shared cleanup hooks; this covers the tests of this file).
setDefaultTimeout(120_000);


const VERSION = (await Bun.file(`${import.meta.dir}/../../package.json`).json()).version as string;

/** A Db that works while services boot, then fails every query once `down` is set. */
function switchable(db: Db) {
  const state = { down: false };
  const wrapped: Db = { ...db, query: (text, params) => (state.down ? Promise.reject(new Error('connection reset')) : db.query(text, params)) };
  return { db: wrapped, state };
}

async function expectUnhealthy(db: Db) {
  const flaky = switchable(db);
  const t = await testApp(flaky.db, {}, { mirror: false, workers: false });
  flaky.state.down = true;
  const res = await t.request('/api/health');
  expect(res.status).toBe(503);
  expectSecurityHeaders(res);
  const health = await body(res);
  expect(health).toMatchObject({ status: 'degraded', db: 'error', version: VERSION });
  expect(Number.isInteger(health.latencyMs)).toBe(true);
}

for (const backend of backends()) {
  describe(`GET /api/health on ${backend.name}`, async () => {
    const db = await backend.create();

    test('answers 200 {status, db, latencyMs, version} when the database answers', async () => {
      const t = await testApp(db, {}, { mirror: false, workers: false });
      const res = await t.request('/api/health');
      expect(res.status).toBe(200);
      expectSecurityHeaders(res);
      const health = await body(res);
      expect(Object.keys(health).sort()).toEqual(['clicks', 'db', 'latencyMs', 'status', 'version']);
      expect(health.clicks).toEqual({ writer: 'ok', backlog: 0 });
      expect(health.status).toBe('ok');
      expect(health.db).toBe('ok');
      expect(health.version).toBe(VERSION);
      expect(Number.isInteger(health.latencyMs)).toBe(true);
      expect(health.latencyMs).toBeGreaterThanOrEqual(0);
    });

    test('needs no credentials and refuses other methods with 405', async () => {
      const t = await testApp(db, {}, { mirror: false, workers: false });
      const res = await t.request('/api/health', { method: 'POST' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET');
    });

    test('answers 503 with db: "error" when every query fails', async () => {
      await expectUnhealthy(db);
    });
  });
}

describe('an unreachable database', () => {
  test('PGlite that has been closed answers 503', async () => {
    const closed = await openPglite();
    await migrate(closed);
    const t = await testApp(closed, {}, { mirror: false, workers: false });
    await closed.close();
    const res = await t.request('/api/health');
    expect(res.status).toBe(503);
    expect((await body(res)).db).toBe('error');
  });

  test('a database that never answers counts as down once the deadline passes', async () => {
    const stuck = { query: () => new Promise<never>(() => {}) };
    expect(await checkHealth({ db: stuck, version: VERSION }, 50)).toMatchObject({ status: 'degraded', db: 'error' });
  });

  test('a click writer that is not writing makes the node degraded while the database answers', async () => {
    const answering = { query: async () => [] } as unknown as Db;
    for (const writer of ['retrying', 'stalled'] as const) {
      const health = await checkHealth({ db: answering, version: VERSION, clickWriter: () => ({ writer, backlog: 1200 }) });
      expect(health).toMatchObject({ status: 'degraded', db: 'ok', clicks: { writer, backlog: 1200 } });
    }
    expect(await checkHealth({ db: answering, version: VERSION, clickWriter: () => ({ writer: 'ok', backlog: 3 }) })).toMatchObject({ status: 'ok' });
  });

  if (process.env.DATABASE_URL) {
    test('Postgres on a port where nothing listens answers 503', async () => {
      const url = new URL(process.env.DATABASE_URL!);
      url.port = '1';
      const nowhere = openPostgres(url.toString(), { max: 1 });
      try {
        expect(await checkHealth({ db: nowhere, version: VERSION })).toMatchObject({ status: 'degraded', db: 'error' });
      } finally {
        await nowhere.close();
      }
    });

    test('Postgres whose database was dropped under it answers 503, and 200 before that', async () => {
      const { url, name } = await createPostgres();
      const db = openPostgres(url, { max: 2 });
      const t = await testApp(db, {}, { mirror: false, workers: false });
      expect((await t.request('/api/health')).status).toBe(200);
      const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
      const res = await t.request('/api/health');
      expect(res.status).toBe(503);
      expect((await body(res)).db).toBe('error');
      await db.close().catch(() => {});
    });
  }
});
