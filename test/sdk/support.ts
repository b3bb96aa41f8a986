import { assertIdentifier, type Db } from '../../src/db/db';
import type { TestApp } from '../support/app';
import { eventually } from '../support/wait';

/** An SDK call as an app makes it: the key in X-SDK-Key, the device's address as the proxy saw it. */
export function sdkCall(t: TestApp, sdkKey: string, ip = '203.0.113.10') {
  return (path: string, json: unknown, headers: Record<string, string> = {}) =>
    t.request(`/api/sdk/v1/${path}`, { method: 'POST', headers: { 'x-sdk-key': sdkKey, 'x-forwarded-for': ip, ...headers }, json });
}

/** Installs a device through the SDK (POST /api/sdk/v1/install) and answers its install id. */
export async function installIdOf(call: (path: string, json: unknown) => Promise<Response>, deviceId: string, platform: string): Promise<string> {
  const response = await call('install', { device_id: deviceId, platform });
  if (!response.ok) throw new Error(`install answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { install_id: string }).install_id;
}

/** Every text-like column of every table, to prove a value was stored nowhere. */
export async function tablesContaining(db: Db, needle: string): Promise<string[]> {
  const columns = await db.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     WHERE c.table_schema = 'public' AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')`,
  );
  expectSome(columns.length);
  const hits: string[] = [];
  for (const { table_name, column_name } of columns) {
    const rows = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${assertIdentifier(table_name)} WHERE strpos(${assertIdentifier(column_name)}::text, $1) > 0`,
      [needle],
    );
    if ((rows[0]?.n ?? 0) > 0) hits.push(`${table_name}.${column_name}`);
  }
  return hits;
}

function expectSome(count: number) {
  if (count < 20) throw new Error(`only ${count} text columns found: the search would prove nothing`);
}

/**
 * Copies to the DuckDB mirror until `query` finds what it expects. The mirror waits for every
 * older transaction on the server (other databases' included) to finish, so one round may not do.
 */
export function mirrored<T>(t: TestApp, sql: string, params: readonly unknown[], done: (rows: T[]) => boolean): Promise<T[]> {
  return eventually(
    async () => {
      await t.services.mirror.catchUp();
      const rows = await t.services.mirror.query<T>(sql, params);
      return done(rows) ? rows : undefined;
    },
    { timeoutMs: 30_000, everyMs: 50 },
  );
}
