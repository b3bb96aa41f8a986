import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { ROOT } from './process';
import { tempDir } from './temp-dir';
import { eventually } from './wait';

export interface RunningServer {
  proc: Subprocess;
  port: number;
  url: string;
  env: Record<string, string>;
  dataDir: string;
  /** Output so far (stdout and stderr), for assertions and for debugging a failure. */
  output(): string;
  /** Sends a signal and waits for the process to exit; resolves to its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Servers this test process started that have not exited. A test whose setup fails after its
 * server started (a browser that cannot launch, in a describe body) never reaches the code that
 * stops it; the run's end kills what is left (run-temp-dir.ts), so no server outlives the run.
 */
const running = new Map<Subprocess, { dataDir: string; signal(signal: NodeJS.Signals): void }>();

const exited = (proc: Subprocess) => proc.exitCode !== null || proc.signalCode !== null;

/** Kills, with SIGKILL, every server still running; returns the data directories of those it killed. */
export function killLeftoverServers(): string[] {
  const killed: string[] = [];
  for (const [proc, { dataDir, signal }] of running) {
    if (exited(proc)) continue;
    try {
      signal('SIGKILL');
    } catch {}
    proc.kill('SIGKILL'); // a wrapper, when the server ran under one
    killed.push(dataDir);
  }
  running.clear();
  return killed;
}

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/**
 * Starts `bun src/main.ts` as a real process and waits until /api/health answers.
 * Pass DATABASE_URL in env for Postgres; without it the server uses PGlite under its own DATA_DIR.
 * Reuse `dataDir` to restart a server on the same embedded store. `wrapper` runs it under a
 * command that forks it, e.g. `unshare --fork`: stop then signals that command's child.
 * EMBEDDED_STORE_THREAD set for the test run reaches the server too (the e2e tests on the store's thread).
 */
export async function startServer(
  env: Record<string, string> = {},
  options: { dataDir?: string; timeoutMs?: number; wrapper?: string[] } = {},
): Promise<RunningServer> {
  const port = Number(env.PORT ?? (await freePort()));
  const dataDir = options.dataDir ?? tempDir('e2e');
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATA_DIR: dataDir,
    SESSION_SECRET: 'e2e-session-secret-that-is-long-enough-0123456789',
    RATE_LIMIT: 'off',
    ...(process.env.EMBEDDED_STORE_THREAD ? { EMBEDDED_STORE_THREAD: process.env.EMBEDDED_STORE_THREAD } : {}),
    ...env,
    PORT: String(port),
  };
  if (!('DATABASE_URL' in env)) delete fullEnv.DATABASE_URL;
  let out = '';
  const proc = Bun.spawn([...(options.wrapper ?? []), process.execPath, join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: fullEnv,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  // The server itself: under a wrapper, the wrapper's child.
  const signal = (name: NodeJS.Signals) => (options.wrapper ? process.kill(childOf(proc.pid), name) : proc.kill(name));
  running.set(proc, { dataDir, signal });
  void proc.exited.then(() => running.delete(proc));
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk);
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}:\n${out}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.status === 200) break;
    } catch {}
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`server did not become healthy:\n${out}`);
    }
    await Bun.sleep(100);
  }
  return {
    proc,
    port,
    url,
    env: fullEnv,
    dataDir,
    output: () => out,
    async stop(name: NodeJS.Signals = 'SIGTERM') {
      if (!exited(proc)) signal(name);
      return proc.exited;
    },
  };
}

/** Waits until the server has printed `text`; fails with its output so far when it has not in time. */
export async function waitForOutput(server: RunningServer, text: string, timeoutMs = 30_000): Promise<void> {
  await eventually(() => server.output().includes(text), { timeoutMs, everyMs: 20 }).catch(() => {
    throw new Error(`the server did not print ${JSON.stringify(text)} within ${timeoutMs} ms:\n${server.output()}`);
  });
}

/** The one child of `pid` (a wrapper that forked the server), by its pid as this process sees it. */
function childOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
  if (children.length !== 1) throw new Error(`expected one child of ${pid}, found ${children.length}`);
  return Number(children[0]);
}
