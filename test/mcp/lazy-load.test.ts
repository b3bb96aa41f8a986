import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '../..');

/**
 * Modules of the MCP SDK and its schema libraries in a fresh process's module cache after it
 * imports `modules` in order. A fresh process: this test runner's own cache holds whatever the
 * other test files loaded.
 */
function sdkModulesAfter(modules: string[]): string[] {
  const script = `${modules.map((path) => `await import(${JSON.stringify(join(ROOT, path))});`).join('\n')}
console.log(JSON.stringify(Object.keys(require.cache).filter((key) => /node_modules\\/(@modelcontextprotocol|zod|ajv)/.test(key))));`;
  const run = Bun.spawnSync([process.execPath, '--eval', script], { cwd: ROOT, stderr: 'pipe' });
  if (run.exitCode !== 0) throw new Error(`probe failed: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString().trim().split('\n').at(-1)!) as string[];
}

describe('the MCP SDK loads with the first MCP request, not at start', () => {
  test('importing the app (every route module) loads none of the SDK, zod or ajv', () => {
    expect(sdkModulesAfter(['src/app.ts'])).toEqual([]);
  });

  test('the module POST /api/mcp loads brings the SDK (the probe sees it)', () => {
    const loaded = sdkModulesAfter(['src/app.ts', 'src/mcp/answer.ts']);
    expect(loaded.some((key) => key.includes('@modelcontextprotocol/sdk'))).toBe(true);
    expect(loaded.some((key) => key.includes('node_modules/zod'))).toBe(true);
  });
});
