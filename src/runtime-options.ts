/**
 * Engine options the server runs with. JavaScriptCore reads its options from `BUN_JSC_*`
 * environment variables once, as the process starts, so main.ts applies a missing one by
 * replacing the process with itself (`execve`: same pid, same arguments, same descriptors) with
 * the variable set, before anything else loads (apply-runtime-options.ts). Whatever the launcher
 * (npm start, `bun src/main.ts`, the container, a test), the server runs the same way.
 *
 * - `BUN_JSC_numberOfGCMarkers=1`: the collector marks on the thread that collects instead of
 *   waking helper threads. With every core busy (redirects on each event loop, the database
 *   beside them) a collection waited for its helpers to be scheduled, so collections that marked
 *   a few hundred kilobytes paused an event loop for 2 to 15 ms (docs/performance.md, run 24).
 *
 * An operator who sets a variable keeps their value (for `BUN_JSC_numberOfGCMarkers`, 4 lets
 * JavaScriptCore mark in parallel again); where `execve` is missing (Windows) the server runs
 * with the engine's defaults.
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
