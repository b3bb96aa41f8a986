import { describe, expect, test } from 'bun:test';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { ROOT } from '../support/process';
import { tempDir } from '../support/temp-dir';

const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly');
const OFFLINE = join(import.meta.dir, 'support', 'offline.cjs');
const IGNORE_FILE = join(import.meta.dir, '.redocly.lint-ignore.yaml');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/**
 * `redocly lint --extends=recommended` on the served document, with the recorded exceptions
 * (.redocly.lint-ignore.yaml), under Node as the CLI expects. Telemetry and the update check are
 * off, and offline.cjs refuses any connection; HOME is the temp dir, so nothing is read from the user's.
 */
async function lint(document: unknown): Promise<{ report: LintReport; stderr: string }> {
  const dir = tempDir('redocly');
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document, null, 2));
  copyFileSync(IGNORE_FILE, join(dir, '.redocly.lint-ignore.yaml'));
  const proc = Bun.spawn(['node', '--require', OFFLINE, REDOCLY, 'lint', '--extends=recommended', '--format=json', '--max-problems=1000', 'openapi.json'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
      NO_COLOR: '1',
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (!stdout.trim().startsWith('{')) throw new Error(`redocly gave no report:\n${stdout}\n${stderr}`);
  return { report: JSON.parse(stdout) as LintReport, stderr };
}

const listed = ({ problems }: LintReport) =>
  problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`).join('\n');

// The document does not depend on the database, so one backend is enough.
describe('the OpenAPI document under redocly lint --extends=recommended', async () => {
  const db = await backends()[0]!.create();
  const t = await testApp(db, {}, { mirror: false, workers: false });
  const document = await body(await t.request('/api/openapi.json'));

  test('no error and no warning, offline', async () => {
    const { report, stderr } = await lint(document);
    expect(stderr).not.toContain('offline check');
    expect({ totals: report.totals, problems: listed(report) }).toEqual({ totals: { errors: 0, warnings: 0, ignored: 3 }, problems: '' });
  }, 60_000);
});
