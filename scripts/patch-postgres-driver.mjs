#!/usr/bin/env node
// Fixes two faults of the `postgres` driver (3.4.x) after every install (`postinstall`): a statement
// failed with its cut connection is forgotten, so a refused reconnect fails the next one instead of
// hanging it; a COPY whose error comes after its last byte ends its stream with that error
// (docs/operations.md, "Postgres restarts and refused connections"). Idempotent; a driver without the
// anchor line is left alone, and test/db/postgres-driver.test.ts fails if either fault is back.
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
