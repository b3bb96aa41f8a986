import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './db';

const SQL_DIR = join(import.meta.dir, '..', '..', 'sql');
const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;
/** Any fixed number: every instance that boots takes the same lock, so only one migrates at a time. */
export const MIGRATION_LOCK = 727_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = SQL_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file, sql: readFileSync(join(dir, file), 'utf8') }));
}

/** Told before each pending migration runs: its name, its place among the pending, their count. */
export type MigrationProgress = (step: { name: string; index: number; pending: number }) => void;

/**
 * Applies pending migrations in order, forwards only, each recorded in schema_migrations.
 * The whole run holds a transaction-scoped advisory lock, so two instances booting at once
 * apply each migration exactly once. Returns the names applied by this call.
 */
export async function migrate(db: Db, migrations = readMigrations(), onProgress?: MigrationProgress): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Set(
      (await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => row.version),
    );
    const pending = migrations.filter((migration) => !applied.has(migration.version));
    const done: string[] = [];
    for (const migration of pending) {
      onProgress?.({ name: migration.name, index: done.length + 1, pending: pending.length });
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      done.push(migration.name);
    }
    return done;
  });
}
