/**
 * sdk/react-native type-checks against React Native 0.68 (the spec's minimum, `@types/react-native`
 * 0.68) and against the current `react-native` with its bundled types, both with the package's
 * TypeScript 5; its tests with the root's. React Native and its types come from the package's own
 * lockfile, installed on first use: never part of the root install.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ensurePackageInstalled } from '../../scripts/ensure-package-install';

const PACKAGE = join(import.meta.dir, '..', '..', 'sdk', 'react-native');
// The install can take minutes on a clean clone.
const INSTALL_TIMEOUT_MS = 10 * 60_000;

const PACKAGE_TSC = join(PACKAGE, 'node_modules', 'typescript', 'bin', 'tsc');
const ROOT_TSC = join(import.meta.dir, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');

async function tsc(project: string, compiler = PACKAGE_TSC): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(['node', compiler, '--noEmit', '-p', join(PACKAGE, project), '--listFiles'], {
    cwd: PACKAGE,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, output: stdout + stderr };
}

/** tsc's diagnostics only (its output without the --listFiles lines). */
const diagnostics = (output: string) => output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('/')).join('\n');

describe('sdk/react-native type checks', () => {
  beforeAll(() => ensurePackageInstalled('sdk/react-native'), INSTALL_TIMEOUT_MS);

  test('against React Native 0.68 (@types/react-native 0.68)', async () => {
    const { code, output } = await tsc('tsconfig.rn068.json');
    expect(diagnostics(output)).toBe('');
    expect(code).toBe(0);
    expect(output).toContain('node_modules/@types/react-native/index.d.ts');
    expect(output).not.toContain('node_modules/react-native/types_generated');
  }, INSTALL_TIMEOUT_MS);

  test("against the current react-native's bundled types", async () => {
    const { code, output } = await tsc('tsconfig.json');
    expect(diagnostics(output)).toBe('');
    expect(code).toBe(0);
    expect(output).toContain('node_modules/react-native/types_generated/index.d.ts');
    expect(output).not.toContain('node_modules/@types/react-native/');
  }, INSTALL_TIMEOUT_MS);

  test("its tests with the root's TypeScript and bun's types", async () => {
    const { code, output } = await tsc('test/tsconfig.json', ROOT_TSC);
    expect(diagnostics(output)).toBe('');
    expect(code).toBe(0);
  }, INSTALL_TIMEOUT_MS);
});
