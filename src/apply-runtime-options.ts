/**
 * Imported first by main.ts, for its side effect: a process started without the engine options
 * of runtime-options.ts is replaced by itself with them set (same pid, so signals and a
 * container's PID 1 are unchanged). Evaluated before any other module, so the first image runs
 * none of the server's code.
 */
import { missingRuntimeOptions, sameCommandLine } from './runtime-options';

const missing = missingRuntimeOptions(process.env);
if (missing && typeof process.execve === 'function') {
  try {
    process.execve(process.execPath, sameCommandLine(process), { ...process.env, ...missing });
  } catch (error) {
    // Still a working server, with the engine's defaults.
    console.error(`runtime options: could not restart with ${Object.keys(missing).join(', ')}:`, (error as Error).message);
  }
}
