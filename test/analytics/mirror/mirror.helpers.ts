import { afterAll } from 'bun:test';
import { join } from 'node:path';
import { createMirror, type Mirror, type MirrorOptions } from '../../../src/analytics/mirror/mirror';
import { newId } from '../../../src/shared/ids';
import { tempDir } from '../../support/temp-dir';

const open: Mirror[] = [];
afterAll(async () => {
  for (const mirror of open.splice(0)) await mirror.stop().catch(() => {});
});

/** A mirror on `db` that copies only when told (intervalMs 0); stopped after the file. */
export async function testMirror(options: Omit<MirrorOptions, 'path'> & { path?: string }): Promise<Mirror> {
  const mirror = await createMirror({ intervalMs: 0, path: ':memory:', log: () => {}, ...options });
  open.push(mirror);
  return mirror;
}

export function tempDuckFile(): string {
  return join(tempDir('mirror'), 'analytics.duckdb');
}

/** Tests isolate themselves by organisation: the database is shared by the whole file. */
export const newOrg = () => `org_${newId()}`;

export async function countFor(mirror: Mirror, table: string, orgId: string): Promise<{ rows: number; ids: number }> {
  const [row] = await mirror.query<{ rows: number; ids: number }>(
    `SELECT count(*) AS rows, count(DISTINCT id) AS ids FROM ${table} WHERE org_id = $1`,
    [orgId],
  );
  return row!;
}

/** A promise resolved from outside: holds a transaction open until the test releases it. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
