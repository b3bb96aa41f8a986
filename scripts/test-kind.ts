/**
 * Runs one kind of test file: `bun scripts/test-kind.ts unit|int|e2e [bun test options]`, or
 * `--list` to print the files. A file's kind follows from what it imports inside test/, however
 * indirectly, so no list is kept by hand. e2e: test/e2e/ and any test that starts the real server
 * (test/support/server.ts); int: any other that opens a database or an app (support/db.ts, app.ts).
 */
import { Glob } from 'bun';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(import.meta.dir, '..');
const KINDS = ['unit', 'int', 'e2e'] as const;
type Kind = (typeof KINDS)[number];

const SERVER = [join(ROOT, 'test/support/server.ts')];
const STORAGE = [join(ROOT, 'test/support/db.ts'), join(ROOT, 'test/support/app.ts')];
// Type-only imports run nothing, so they say nothing about what a test opens.
const RELATIVE_IMPORT = /^\s*(?:(?:import|export)(?!\s+type\b)[^;'"]*?from\s*|import\s*)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The files under test/ that `file` imports, directly. */
function importsOf(file: string): string[] {
  const found: string[] = [];
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
    const target = resolve(dirname(file), specifier!);
    const path = existsSync(target) && target.endsWith('.ts') ? target : `${target}.ts`;
    if (path.startsWith(join(ROOT, 'test')) && existsSync(path)) found.push(path);
  }
  return found;
}

/** Whether `file` reaches one of `targets` through its imports. */
function reaches(file: string, targets: string[], seen = new Set<string>()): boolean {
  if (targets.includes(file)) return true;
  if (seen.has(file)) return false;
  seen.add(file);
  return importsOf(file).some((next) => reaches(next, targets, seen));
}

function kindOf(file: string): Kind {
  if (relative(ROOT, file).startsWith('test/e2e/') || reaches(file, SERVER)) return 'e2e';
  return reaches(file, STORAGE) ? 'int' : 'unit';
}

const [kind, ...rest] = process.argv.slice(2);
if (!KINDS.includes(kind as Kind)) {
  console.error('usage: bun scripts/test-kind.ts unit|int|e2e [--list | bun test options]');
  process.exit(64);
}
// The SDKs' own tests (sdk/*/test/) run in the same suite; they open nothing, so they are unit tests.
const files = ['test/**/*.test.ts', 'sdk/*/test/**/*.test.ts']
  .flatMap((pattern) => [...new Glob(pattern).scanSync(ROOT)])
  .sort()
  .filter((file) => kindOf(join(ROOT, file)) === kind);
if (rest[0] === '--list') {
  console.log(files.join('\n'));
} else {
  const run = Bun.spawn([process.execPath, 'test', '--timeout', '60000', ...rest, ...files.map((file) => `./${file}`)], { cwd: ROOT, stdio: ['inherit', 'inherit', 'inherit'] });
  process.exit(await run.exited);
}
