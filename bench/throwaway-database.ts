import postgres from 'postgres';
import { ulid } from 'ulid';

/** The Postgres server the benchmarks use: DATABASE_URL, else the local one. */
export const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface ThrowawayDatabase {
  url: string;
  /** Drops the database and closes the admin connection. */
  drop(): Promise<void>;
  /** Closes the admin connection and keeps the database (to inspect it after a run). */
  keep(): Promise<void>;
}

/** A fresh, empty database on the benchmark's Postgres server, so a run never sees another's rows. */
export async function throwawayDatabase(options: { adminUrl?: string; connectTimeoutSeconds?: number } = {}): Promise<ThrowawayDatabase> {
  const adminUrl = options.adminUrl ?? ADMIN_URL;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: options.connectTimeoutSeconds ?? 30 });
  const name = `svc_bench_${ulid().toLowerCase()}`;
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } catch (error) {
    await admin.end();
    throw error;
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
    keep: () => admin.end(),
  };
}

/** At a run's end: the database dropped, or with BENCH_KEEP set kept, its URL on stderr. */
export async function dropUnlessKept(database: ThrowawayDatabase, log: (message: string) => void): Promise<void> {
  if (process.env.BENCH_KEEP) {
    log(`kept ${database.url}`);
    await database.keep();
  } else await database.drop();
}
