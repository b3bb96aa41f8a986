#!/usr/bin/env node
// Fixes a hang in the `postgres` driver (3.4.x), applied after every install (`postinstall`).
//
// When a connection is cut while a statement runs on it (Postgres restarting, a backend
// terminated, a failover), the driver rejects that statement but keeps it as the connection's
// current one. If the next connection attempt is then refused during startup (FATAL "the
// database system is starting up", "too many clients", "not currently accepting connections"),
// the refusal is taken for the stale statement's error: the statement that asked for the new
// connection is never settled, and the driver reconnects about a hundred times a second until
// Postgres accepts again. The click writer, the mirror and every request waiting on the pool
// hang for that time instead of failing and retrying on their own schedule.
//
// The fix forgets the settled statement when its connection closes. It is idempotent; when
// the driver's code no longer has the line (a newer version), it says so and changes nothing,
// and test/db/postgres-driver.test.ts fails if the hang is back.
//
//   node scripts/patch-postgres-driver.mjs
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const ROOT = new URL('../node_modules/postgres/', import.meta.url);
// One copy per build the package ships: Bun and ESM (src), CommonJS (cjs), Workers (cf).
const FILES = ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js'];
const ANCHOR = "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n";
const MARK = '// svc: a statement settled with its closed connection';
const FIX = `    query = errorResponse = null ${MARK}\n`;

let patched = 0;
for (const file of FILES) {
  const url = new URL(file, ROOT);
  if (!existsSync(url)) continue;
  const source = readFileSync(url, 'utf8');
  if (source.includes(MARK)) continue;
  const at = source.indexOf(ANCHOR);
  if (at < 0 || source.indexOf(ANCHOR, at + 1) >= 0) {
    console.warn(`patch-postgres-driver: ${file} has changed; left as it is (see test/db/postgres-driver.test.ts)`);
    continue;
  }
  writeFileSync(url, source.slice(0, at + ANCHOR.length) + FIX + source.slice(at + ANCHOR.length));
  patched++;
}
if (patched > 0) console.log(`patch-postgres-driver: ${patched} file(s) patched`);
