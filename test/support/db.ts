import { afterAll } from 'bun:test';
import postgres from 'postgres';
import { ulid } from 'ulid';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { openPglite } from '../../src/db/pglite';
import { openPgliteThread } from '../../src/db/pglite.thread';
import { openPostgres } from '../../src/db/postgres';

export interface Backend {
  name: 'pglite' | 'postgres';
  /**
   * A fresh, migrated, empty database, closed (and dropped) when the scope that asked for it
   * ends: the describe block or test file, or the test itself when called inside a test.
   */
  create(): Promise<Db>;
}

/** PGlite always; real Postgres too when DATABASE_URL is set (CI sets it). */
export function backends(): Backend[] {
  const list: Backend[] = [{ name: 'pglite', create: createPglite }];
  if (process.env.DATABASE_URL) list.push({ name: 'postgres', create: () => createPostgres().then((p) => p.db) });
  return list;
}

/** Work to do before a database closes (an app instance's services must flush into it first). */
const beforeClose = new WeakMap<Db, (() => Promise<void>)[]>();

/**
 * Runs `stop` when the scope ends: before `db` closes when `db` came from this module, else on
 * its own (a wrapper or a second pool a test made, and maybe closed itself). Either way nothing
 * an app started keeps polling a database after its test.
 */
export function onBeforeClose(db: Db, stop: () => Promise<void>): void {
  const list = beforeClose.get(db);
  if (!list) {
    afterAll(() => stop().catch(() => {}), 60_000);
    return;
  }
  list.push(stop);
}

/**
 * Registered when the database is made, so it runs when that scope ends. (A hook registered at
 * a shared module's top level would belong to whichever file imported it first.)
 */
function closeWithScope(db: Db, close: () => Promise<void>): void {
  beforeClose.set(db, []);
  afterAll(async () => {
    for (const stop of (beforeClose.get(db) ?? []).reverse()) await stop().catch(() => {});
    await close().catch(() => {});
  }, 60_000);
}

/** PGLITE_THREAD=1: the embedded store in a thread of its own, as EMBEDDED_STORE_THREAD=on runs it. */
async function createPglite(): Promise<Db> {
  const db = process.env.PGLITE_THREAD === '1' ? await openPgliteThread(undefined) : await openPglite();
  await migrate(db);
  closeWithScope(db, () => db.close());
  return db;
}

/**
 * A throwaway database on the DATABASE_URL server, so test files never see each other's rows.
 * Returns its URL too, for tests that start a second instance or the real server on it.
 * Connections are few and close when idle: a whole suite shares one server's connection limit.
 */
export async function createPostgres(options: { migrated?: boolean } = {}): Promise<{ db: Db; url: string; name: string }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('createPostgres needs DATABASE_URL');
  const name = `svc_test_${ulid().toLowerCase()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, idle_timeout: 2 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), { max: 5, idleTimeoutSeconds: 5 });
  if (options.migrated !== false) await migrate(db);
  closeWithScope(db, async () => {
    await db.close();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  return { db, url: url.toString(), name };
}
