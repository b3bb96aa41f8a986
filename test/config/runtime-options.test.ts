import { describe, expect, test } from 'bun:test';
import { missingRuntimeOptions, RUNTIME_OPTIONS, sameCommandLine } from '../../src/runtime-options';

describe('runtime options: what a starting process still needs', () => {
  test('a process started without them needs every one', () => {
    expect(missingRuntimeOptions({ PATH: '/usr/bin' })).toEqual({ ...RUNTIME_OPTIONS });
    expect(RUNTIME_OPTIONS).toEqual({ BUN_JSC_numberOfGCMarkers: '1' });
  });

  test('a process that has them (the restarted image) needs none, so it never restarts again', () => {
    expect(missingRuntimeOptions({ ...RUNTIME_OPTIONS })).toBeNull();
  });

  test("an operator's own value is kept, whatever it is", () => {
    expect(missingRuntimeOptions({ BUN_JSC_numberOfGCMarkers: '4' })).toBeNull();
    expect(missingRuntimeOptions({ BUN_JSC_numberOfGCMarkers: '' })).toBeNull();
  });
});

describe('runtime options: the restarted process runs the same command line', () => {
  test("Bun's own flags, then the script and its arguments", () => {
    const line = sameCommandLine({ execPath: '/opt/bun', execArgv: ['--cpu-prof', '--smol'], argv: ['/opt/bun', 'src/main.ts', '--flag', 'value'] });
    expect(line).toEqual(['/opt/bun', '--cpu-prof', '--smol', 'src/main.ts', '--flag', 'value']);
  });

  test('without flags or arguments', () => {
    expect(sameCommandLine({ execPath: '/opt/bun', execArgv: [], argv: ['/opt/bun', 'src/main.ts'] })).toEqual(['/opt/bun', 'src/main.ts']);
  });
});
