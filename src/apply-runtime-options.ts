/**
 * Imported first by main.ts, for its side effect: a process started without the engine options
 * of runtime-options.ts is replaced by itself with them set (same pid, so signals, `kill -9` and
 * a container's PID 1 are unchanged). It is evaluated before any other module of the server,
 * so the first image runs none of the server's code; it has only loaded main.ts's imports, which
 * an ES module graph does before evaluating any of it (70 to 230 ms of boot, measured).
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
