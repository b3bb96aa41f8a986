/**
 * Builds the web SDK: `dist/svc-sdk.mjs` (ES module), `dist/svc-sdk.iife.js` (script tag,
 * global `SvcSdk`), both ES2019 and minified, and the declarations under `dist/types/`; prints
 * each bundle's size minified and gzipped. `bun scripts/build.ts [outDir]`.
 */
import { build, type BuildOptions } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

export const SDK_DIR = join(import.meta.dir, '..');
const CORE_SRC = join(SDK_DIR, '..', 'core', 'src');
/** The spec's web minimum. */
export const TARGET = 'es2019';
export const GLOBAL_NAME = 'SvcSdk';

export interface Bundle {
  format: 'esm' | 'iife';
  path: string;
  bytes: number;
  gzipBytes: number;
}

export async function buildSdk(outDir = join(SDK_DIR, 'dist')): Promise<Bundle[]> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const common: BuildOptions = {
    entryPoints: [join(SDK_DIR, 'src', 'index.ts')],
    bundle: true,
    minify: true,
    sourcemap: true,
    target: TARGET,
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'silent',
  };
  const bundles: Bundle[] = [];
  for (const [format, name] of [['esm', 'svc-sdk.mjs'], ['iife', 'svc-sdk.iife.js']] as const) {
    const path = join(outDir, name);
    await build({ ...common, format, outfile: path, ...(format === 'iife' ? { globalName: GLOBAL_NAME } : {}) });
    const code = readFileSync(path);
    bundles.push({ format, path, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length });
  }
  emitDeclarations(join(outDir, 'types'));
  return bundles;
}

/**
 * tsc from the typescript package, which also type-checks the sources (a type error fails the
 * build). The sources import sdk/core by relative path, so tsc writes `web/src/` and `core/src/`
 * under a common root; the package ships web's declarations at `types/` and the core's at
 * `types/core/`, with web's imports of the core pointed there.
 */
function emitDeclarations(outDir: string): void {
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const emitted = `${outDir}.tsc`;
  rmSync(emitted, { recursive: true, force: true });
  const run = spawnSync('node', [tsc, '-p', join(SDK_DIR, 'tsconfig.json'), '--outDir', emitted], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`tsc failed (${run.status ?? run.signal}):\n${run.stdout}${run.stderr}`);
  mkdirSync(outDir, { recursive: true });
  for (const name of readdirSync(join(emitted, 'web', 'src'))) {
    const text = readFileSync(join(emitted, 'web', 'src', name), 'utf8');
    writeFileSync(join(outDir, name), text.replace(/(['"])\.\.\/\.\.\/core\/src(?=['"/])/g, '$1./core'));
  }
  renameSync(join(emitted, 'core', 'src'), join(outDir, 'core'));
  copyFileSync(join(CORE_SRC, 'globals.d.ts'), join(outDir, 'core', 'globals.d.ts'));
  rmSync(emitted, { recursive: true, force: true });
}

if (import.meta.main) {
  const bundles = await buildSdk(process.argv[2]);
  for (const bundle of bundles) {
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(`${relative(process.cwd(), bundle.path)}  ${kb(bundle.bytes)} minified, ${kb(bundle.gzipBytes)} gzipped`);
  }
}
