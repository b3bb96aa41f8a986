/**
 * Engine options the server runs with, whatever the launcher. JavaScriptCore reads `BUN_JSC_*`
 * once, at process start, so main.ts sets a missing one by replacing the process with itself
 * (apply-runtime-options.ts). `BUN_JSC_numberOfGCMarkers=1`: a collection never waits for helper
 * threads on busy cores. An operator's own value wins (docs/operations.md, "Start and stop").
 */
export const RUNTIME_OPTIONS: Readonly<Record<string, string>> = { BUN_JSC_numberOfGCMarkers: '1' };

/** The variables still to set, or null when the process already runs with all of them. */
export function missingRuntimeOptions(env: NodeJS.ProcessEnv): Record<string, string> | null {
  const missing = Object.entries(RUNTIME_OPTIONS).filter(([name]) => env[name] === undefined);
  return missing.length > 0 ? Object.fromEntries(missing) : null;
}

/** The command line that started this process: Bun's own flags, then the script and its arguments. */
export function sameCommandLine(process: Pick<NodeJS.Process, 'execPath' | 'execArgv' | 'argv'>): string[] {
  return [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
}
