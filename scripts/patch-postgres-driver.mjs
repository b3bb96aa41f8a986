#!/usr/bin/env node
// Fixes two faults of the `postgres` driver (3.4.x), applied after every install (`postinstall`).
//
// 1. A hang after a cut connection. When a connection is cut while a statement runs on it
//    (Postgres restarting, a backend terminated, a failover), the driver rejects that statement
//    but keeps it as the connection's current one. If the next connection attempt is then refused
//    during startup (FATAL "the database system is starting up", "too many clients", "not
//    currently accepting connections"), the refusal is taken for the stale statement's error: the
//    statement that asked for the new connection is never settled, and the driver reconnects
//    about a hundred times a second until Postgres accepts again. The click writer, the mirror and
//    every request waiting on the pool hang for that time instead of failing and retrying on their
//    own schedule. The fix forgets the settled statement when its connection closes.
//
// 2. A COPY ... FROM STDIN whose error comes after the data. The stream a COPY writes to
//    finishes when Postgres confirms the COPY; an error Postgres reports after the last byte was
//    sent (a unique violation found when the buffered rows are inserted at the end, say) was
//    dropped, and the stream never finished: the caller waited forever. The fix ends the stream
//    with that error, so the COPY fails like any statement. (The CopyFail message the stream then
//    sends arrives outside any COPY, and Postgres ignores it, as the protocol says.)
//
// Each fix is idempotent; when the driver's code no longer has its anchor line (a newer
// version), the script says so and changes nothing, and test/db/postgres-driver.test.ts fails if
// either fault is back.
//
//   node scripts/patch-postgres-driver.mjs
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const ROOT = new URL('../node_modules/postgres/', import.meta.url);
// One copy per build the package ships: Bun and ESM (src), CommonJS (cjs), Workers (cf).
const FILES = ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js'];
const FIXES = [
  {
    anchor: "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
    mark: '// svc: a statement settled with its closed connection',
    line: (mark) => `    query = errorResponse = null ${mark}\n`,
  },
  {
    anchor: '  function errored(err) {\n',
    mark: '// svc: a COPY that failed after its data fails its stream',
    line: (mark) => `    final && (final(err), final = null) ${mark}\n`,
  },
];

let patched = 0;
for (const file of FILES) {
  const url = new URL(file, ROOT);
  if (!existsSync(url)) continue;
  let source = readFileSync(url, 'utf8');
  let changed = false;
  for (const { anchor, mark, line } of FIXES) {
    if (source.includes(mark)) continue;
    const at = source.indexOf(anchor);
    if (at < 0 || source.indexOf(anchor, at + 1) >= 0) {
      console.warn(`patch-postgres-driver: ${file} has changed; "${mark.slice(7)}" left out (see test/db/postgres-driver.test.ts)`);
      continue;
    }
    source = source.slice(0, at + anchor.length) + line(mark) + source.slice(at + anchor.length);
    changed = true;
  }
  if (changed) {
    writeFileSync(url, source);
    patched++;
  }
}
if (patched > 0) console.log(`patch-postgres-driver: ${patched} file(s) patched`);
