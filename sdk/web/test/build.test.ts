import { afterAll, describe, expect, test } from 'bun:test';
import { parse } from 'acorn';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { buildSdk, GLOBAL_NAME, SDK_DIR, type Bundle } from '../scripts/build';
import { SDK_VERSION } from '../src/version';

const API = ['SDK_VERSION', 'configure', 'consentStatus', 'flush', 'forget', 'logEvent', 'open', 'queueStats', 'setConsent'];

describe('the build', async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'svc-web-sdk-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));
  const bundles = await buildSdk(outDir);
  const bundle = (format: Bundle['format']) => bundles.find((b) => b.format === format)!;
  for (const b of bundles) console.log(`${b.format}: ${b.bytes} bytes minified, ${b.gzipBytes} bytes gzipped`);

  test('both bundles parse as ES2019 (the spec\'s web minimum): module and script', () => {
    expect(() => parse(readFileSync(bundle('esm').path, 'utf8'), { ecmaVersion: 2019, sourceType: 'module' })).not.toThrow();
    expect(() => parse(readFileSync(bundle('iife').path, 'utf8'), { ecmaVersion: 2019, sourceType: 'script' })).not.toThrow();
  });

  test('a few KB minified and gzipped', () => {
    for (const b of bundles) {
      expect(b.bytes).toBe(readFileSync(b.path).length);
      expect(b.gzipBytes).toBeLessThan(8 * 1024);
    }
  });

  test('the ES module exports the API; the IIFE puts the same functions on the global SvcSdk', () => {
    const program = parse(readFileSync(bundle('esm').path, 'utf8'), { ecmaVersion: 2019, sourceType: 'module' });
    const exported = program.body.flatMap((node) =>
      node.type === 'ExportNamedDeclaration' ? node.specifiers.map((s) => (s.exported.type === 'Identifier' ? s.exported.name : String(s.exported.value))) : [],
    );
    expect(exported.sort()).toEqual(API);
    const sandbox: Record<string, unknown> = {};
    runInNewContext(readFileSync(bundle('iife').path, 'utf8'), sandbox);
    const global = sandbox[GLOBAL_NAME] as Record<string, unknown>;
    expect(Object.keys(global).sort()).toEqual(API);
    expect(global.SDK_VERSION).toBe(SDK_VERSION);
    expect(() => (global.logEvent as (name: string) => void)('x')).toThrow('call configure() first');
  });

  test('declarations come with it, and the version sent as sdk_version is the package\'s', () => {
    const types = readFileSync(join(outDir, 'types', 'index.d.ts'), 'utf8');
    for (const name of ['configure', 'consentStatus', 'setConsent', 'logEvent', 'flush', 'open', 'queueStats']) expect(types).toContain(`export declare function ${name}(`);
    expect(types).toContain('SdkConfig');
    expect(JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')).version).toBe(SDK_VERSION);
  });
});
