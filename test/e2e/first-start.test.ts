import '../support/slow-suite';
import { expect, setDefaultTimeout, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readMigrations } from '../../src/db/migrate';
import { startServer } from '../support/server';
import { tempDir } from '../support/temp-dir';

// Real server processes on a new embedded store: the first boot creates it.
setDefaultTimeout(180_000);
/** A generous boot deadline: the machine running tests may be busy with other suites. */
const BOOT_MS = 120_000;

/** The progress lines of a start, without their timestamps, in the order printed. */
function progressLines(output: string): string[] {
  return output
    .split('\n')
    .map((line) => /^\[start \d+\.\d+s\] (.*)$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined);
}

test('a first start says what it prepares, then where it is ready; a second start has nothing to migrate', async () => {
  const dataDir = tempDir('first-start');
  const migrations = readMigrations();
  const first = await startServer({}, { dataDir, timeoutMs: BOOT_MS });
  let lines: string[];
  try {
    expect((await fetch(`${first.url}/api/health`)).status).toBe(200);
    lines = progressLines(first.output());
  } finally {
    expect(await first.stop()).toBe(0);
  }
  expect(lines).toContain(`database: opening the embedded store under ${dataDir} (a first start creates it)`);
  const applied = lines.filter((line) => line.startsWith('migration '));
  expect(applied).toEqual(migrations.map((migration, i) => `migration ${i + 1}/${migrations.length}: ${migration.name}`));
  expect(lines).toContain('IP data: preparing the ASN table and the city databases in a thread');
  expect(lines.some((line) => /^IP data: ready \([\d,]+ ASN ranges\)$/.test(line))).toBe(true);
  const ready = `ready: http://localhost:${first.port} (health: http://localhost:${first.port}/api/health)`;
  // Ready comes last, once the IP data the first click needs is in place.
  expect(lines.at(-1)).toBe(ready);
  expect(lines.findIndex((line) => line.startsWith('IP data: ready'))).toBeLessThan(lines.indexOf(ready));
  // The thread wrote the ASN table's binary copy, which every later start maps.
  expect(readdirSync(join(dataDir, 'ipintel')).some((file) => /^asn-[0-9a-f]{16}\.bin$/.test(file))).toBe(true);

  const second = await startServer({}, { dataDir, timeoutMs: BOOT_MS });
  try {
    expect((await fetch(`${second.url}/api/health`)).status).toBe(200);
    const again = progressLines(second.output());
    expect(again.filter((line) => line.startsWith('migration '))).toEqual([]);
    expect(again).toContain('database: checking migrations');
    expect(again.at(-1)).toBe(`ready: http://localhost:${second.port} (health: http://localhost:${second.port}/api/health)`);
  } finally {
    expect(await second.stop()).toBe(0);
  }
});
