import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../src/db/db';
import type { ClickRecord } from '../../src/tracking/click.model';
import { openPglite } from '../../src/db/pglite';
import { createPostgres } from '../support/db';
import { freePort, startServer, type RunningServer } from '../support/server';
export { createLinkOver } from '../support/over-http';

/** Where a real server keeps its data: its own PGlite store, or a throwaway Postgres database. */
export interface E2eBackend {
  name: 'pglite' | 'postgres';
  env: Record<string, string>;
  /**
   * Reads the server's database. Postgres: at any time. PGlite: only while no server runs on
   * the data directory (the embedded store belongs to one process).
   */
  query<T>(dataDir: string, text: string, params?: unknown[]): Promise<T[]>;
  db?: Db;
}

export async function e2eBackends(): Promise<E2eBackend[]> {
  const list: E2eBackend[] = [
    {
      name: 'pglite',
      env: {},
      async query<T>(dataDir: string, text: string, params: unknown[] = []) {
        const db = await openPglite(join(dataDir, 'pglite'));
        try {
          return await db.query<T>(text, params);
        } finally {
          await db.close();
        }
      },
    },
  ];
  if (process.env.DATABASE_URL) {
    const { db, url } = await createPostgres({ migrated: false });
    list.push({ name: 'postgres', env: { DATABASE_URL: url }, db, query: (_dataDir, text, params) => db.query(text, params) });
  }
  return list;
}

/**
 * How long a start may take: a first start creates the embedded store, which on a 2-core machine
 * busy with other suites took past 30 s (docs/operations.md, "First start").
 */
const BOOT_MS = 120_000;

/** A real server whose TRACKING_URL is its own address, so links without a domain answer on it. */
export async function startTrackingServer(backend: E2eBackend, dataDir?: string): Promise<RunningServer> {
  const port = await freePort();
  return startServer({ ...backend.env, PORT: String(port), TRACKING_URL: `http://127.0.0.1:${port}` }, { dataDir, timeoutMs: BOOT_MS });
}

/** Restarts on the same port and data directory (the journal lives there). */
export function restartTrackingServer(backend: E2eBackend, previous: RunningServer): Promise<RunningServer> {
  return startServer({ ...backend.env, PORT: String(previous.port), TRACKING_URL: `http://127.0.0.1:${previous.port}` }, { dataDir: previous.dataDir, timeoutMs: BOOT_MS });
}

/** One click of `/c/{slug}` (or `/l/{slug}`): the click id when it was answered with a 302, null when it was not answered. */
export async function clickOnce(server: RunningServer, slug: string, query = '', path: 'c' | 'l' = 'c'): Promise<string | null> {
  try {
    const res = await fetch(`${server.url}/${path}/${slug}${query}`, { redirect: 'manual', headers: { 'user-agent': 'e2e-load/1.0 (X11; Linux x86_64)' } });
    await res.arrayBuffer();
    if (res.status !== 302) return null;
    return new URL(res.headers.get('location')!).searchParams.get('svc_click_id');
  } catch {
    return null;
  }
}

/** `total` clicks, `concurrency` at a time; resolves to the ids of the answered ones. */
export async function clickMany(server: RunningServer, slug: string, total: number, concurrency = 16, path: 'c' | 'l' = 'c'): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const id = await clickOnce(server, slug, '', path);
        if (id) ids.push(id);
      }
    }),
  );
  return ids;
}

/**
 * The server's click journals: the main thread's, and on Postgres one per tracking listener
 * thread (src/tracking/listeners/listener-journals.ts), each answering a share of the connections.
 */
export function journalDirs(dataDir: string): string[] {
  const listeners = join(dataDir, 'listeners');
  const own = existsSync(listeners) ? readdirSync(listeners).map((name) => join(listeners, name, 'journal')) : [];
  return [join(dataDir, 'journal'), ...own.filter((dir) => existsSync(dir))];
}

/** Click ids sitting in the server's journal files (written, maybe not yet in the database); `dirs` picks journals. */
export function journaledClickIds(dataDir: string, dirs = journalDirs(dataDir)): Set<string> {
  return new Set(journaledClicks(dataDir, dirs).keys());
}

/** The click records in the server's journal files, by click id; `dirs` picks journals. */
export function journaledClicks(dataDir: string, dirs = journalDirs(dataDir)): Map<string, ClickRecord> {
  const clicks = new Map<string, ClickRecord>();
  for (const path of segmentFiles(dataDir).filter((file) => dirs.some((dir) => file.startsWith(`${dir}/`)))) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const entry = JSON.parse(line) as { k: string; r: ClickRecord };
        if (entry.k === 'c') clicks.set(entry.r.id, entry.r);
      } catch {}
    }
  }
  return clicks;
}

/**
 * Holds an exclusive lock on the clicks table until the returned function is called: every
 * click answered meanwhile exists only in a journal, which tells which thread answered it.
 */
export async function lockClicksTable(db: Db): Promise<() => void> {
  let release = () => {};
  await new Promise<void>((locked) => {
    void db.transaction(async (tx) => {
      await tx.query('LOCK TABLE clicks IN EXCLUSIVE MODE');
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
  });
  return release;
}

/** The journal segment files of every journal of the server, as paths. */
export function segmentFiles(dataDir: string): string[] {
  return journalDirs(dataDir).flatMap((dir) => readdirSync(dir).filter((file) => file.endsWith('.jsonl')).map((file) => join(dir, file)));
}

export async function storedClickIds(backend: E2eBackend, dataDir: string, linkId: string): Promise<Set<string>> {
  const rows = await backend.query<{ id: string }>(dataDir, 'SELECT id FROM clicks WHERE link_id = $1', [linkId]);
  return new Set(rows.map((row) => row.id));
}
