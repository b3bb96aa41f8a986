import { afterAll } from 'bun:test';
import postgres from 'postgres';
import { ulid } from 'ulid';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { openPglite } from '../../src/db/pglite';
import { openPostgres } from '../../src/db/postgres';

export interface Backend {
  name: 'pglite' | 'postgres';
  /** A fresh, migrated, empty database; closed (and dropped) after the test file. */
  create(): Promise<Db>;
  /** Connection URL of the fresh database (postgres only), for a second app instance or a child process. */
  url?: string;
}

/** PGlite always; real Postgres too when DATABASE_URL is set (CI sets it). */
export function backends(): Backend[] {
  const list: Backend[] = [{ name: 'pglite', create: createPglite }];
  if (process.env.DATABASE_URL) list.push({ name: 'postgres', create: () => createPostgres().then((p) => p.db) });
  return list;
}

const cleanups: (() => Promise<void>)[] = [];
// Dropping a database with FORCE can take seconds while other suites load the server.
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
}, 60_000);

async function createPglite(): Promise<Db> {
  const db = await openPglite();
  await migrate(db);
  cleanups.push(() => db.close());
  return db;
}

/**
 * A throwaway database on the DATABASE_URL server, so test files never see each other's rows.
 * Returns its URL too, for tests that start a second instance or the real server on it.
 */
export async function createPostgres(options: { migrated?: boolean } = {}): Promise<{ db: Db; url: string; name: string }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('createPostgres needs DATABASE_URL');
  const name = `svc_test_${ulid().toLowerCase()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), { max: 10 });
  if (options.migrated !== false) await migrate(db);
  cleanups.push(async () => {
    await db.close();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  return { db, url: url.toString(), name };
}
