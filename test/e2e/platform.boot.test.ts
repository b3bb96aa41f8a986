import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPostgres } from '../support/db';
import { registerOver } from '../support/over-http';
import { runBun } from '../support/process';
import { freePort, startServer, waitForOutput, type RunningServer } from '../support/server';
import { tempDir } from '../support/temp-dir';
import { eventually } from '../support/wait';

// Real server processes: each boot opens a store and a DuckDB mirror.
setDefaultTimeout(180_000);
/** A generous boot deadline: the machine running tests may be busy with other suites. */
const BOOT_MS = 120_000;

describe('boot: a bad environment stops the process naming the variable', () => {
  for (const [variable, value] of [
    ['PORT', 'abc'],
    ['SESSION_SECRET', 'short'],
    ['BASE_URL', 'not a url'],
    ['RATE_LIMIT', 'sometimes'],
  ] as const) {
    test(`${variable}=${value}`, async () => {
      const run = await runBun(['src/main.ts'], { DATA_DIR: tempDir('boot'), [variable]: value });
      expect(run.code).not.toBe(0);
      expect(run.code).toBe(78);
      expect(run.stderr).toContain(`invalid ${variable}`);
      expect(run.stdout).not.toContain('listening');
    });
  }
});

describe('boot: other start-up failures exit 1 with a clear line', () => {
  test('a port already in use', async () => {
    const squatter = Bun.serve({ port: 0, fetch: () => new Response('taken') });
    try {
      const run = await runBun(['src/main.ts'], { DATA_DIR: tempDir('boot'), PORT: String(squatter.port), SESSION_SECRET: 'e2e-session-secret-that-is-long-enough-0123456789' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`cannot listen on :${squatter.port}`);
    } finally {
      squatter.stop(true);
    }
  });

  test('a database that cannot be reached', async () => {
    const run = await runBun(['src/main.ts'], { DATA_DIR: tempDir('boot'), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing', SESSION_SECRET: 'e2e-session-secret-that-is-long-enough-0123456789' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^(cannot open the database|migrations failed): /m);
  });
});

describe('boot: settings that leave a receiver shut or unchecked are named in the log', () => {
  // Which lines each setting gives: test/config/store-notifications.test.ts.
  test('no Pub/Sub push check: one line naming the variables to set, SKAN_VERIFY=off: marked unsafe', async () => {
    const server = await startServer({ SKAN_VERIFY: 'off' }, { timeoutMs: BOOT_MS });
    try {
      expect(server.output()).toContain('Google Play notifications (POST /api/subscriptions/google) answer 401: set GOOGLE_PUBSUB_TOKEN or GOOGLE_PUBSUB_AUDIENCE to accept them\n');
      expect(server.output()).toContain('SKAN_VERIFY=off: SKAdNetwork postbacks are stored even when their signature fails (unsafe, for test set-ups only)\n');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

/** A raw HTTP/1.1 connection, so a request can be left half-sent on purpose. */
async function rawConnection(port: number) {
  let received = '';
  let closed!: () => void;
  const done = new Promise<void>((resolve) => (closed = resolve));
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data(_socket, data) {
        received += Buffer.from(data).toString();
      },
      close: () => closed(),
      error: () => closed(),
    },
  });
  return {
    write: (text: string) => socket.write(text),
    /** Resolves when `marker` has arrived. */
    async waitFor(marker: string) {
      await eventually(() => received.includes(marker), { timeoutMs: 30_000, everyMs: 50 });
      return received;
    },
    closed: done,
    received: () => received,
    end: () => socket.end(),
  };
}

describe('graceful stop', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal}: stops accepting, lets in-flight requests finish, flushes, closes the stores, exits 0`, async () => {
      const server = await startServer({}, { timeoutMs: BOOT_MS });
      const payload = JSON.stringify({ email: 'nobody@example.com', password: 'not the password' });
      // Several connections, each with a request whose body is only half sent when the signal arrives.
      const connections = await Promise.all(Array.from({ length: 5 }, () => rawConnection(server.port)));
      for (const connection of connections) {
        // A full request first proves the server has accepted this connection.
        connection.write(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        expect(await connection.waitFor('"status":"ok"')).toContain('HTTP/1.1 200');
        connection.write(
          `POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n${payload.slice(0, 12)}`,
        );
      }
      await Bun.sleep(300); // let the server read the headers: the requests are now in flight
      server.proc.kill(signal);
      await waitForOutput(server, `${signal}: finishing in-flight requests`);

      // No new connections are accepted once stopping has begun.
      const refused = await fetch(`${server.url}/api/health`).then(
        () => false,
        () => true,
      );
      expect(refused).toBe(true);

      // The in-flight requests complete with real answers.
      for (const connection of connections) connection.write(payload.slice(12));
      for (const connection of connections) {
        await connection.closed;
        const response = connection.received().slice(connection.received().lastIndexOf('HTTP/1.1 '));
        expect(response).toStartWith('HTTP/1.1 401');
        expect(response.toLowerCase()).toContain('x-content-type-options: nosniff');
        expect(response).toEndWith('{"error":"unauthorized"}');
      }
      expect(await server.proc.exited).toBe(0);
      expect(server.output()).toContain('stopped');
    });
  }

  test('what was written before the stop is there after a restart on the same DATA_DIR, sessions included', async () => {
    const dataDir = tempDir('boot');
    // No SESSION_SECRET: the one generated under DATA_DIR must survive the restart.
    const first = await startServer({ SESSION_SECRET: '' }, { dataDir, timeoutMs: BOOT_MS });
    const { email, password, cookie } = await registerOver(first);
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await startServer({ SESSION_SECRET: '' }, { dataDir, timeoutMs: BOOT_MS });
    try {
      const login = await fetch(`${second.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      expect(login.status).toBe(200);
      expect((await fetch(`${second.url}/api/dashboard/keys`, { headers: { cookie } })).status).toBe(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});

describe('one process per DATA_DIR: a flock held for its life, whatever pid the lock file names', () => {
  const lockFileOf = (dataDir: string) => join(dataDir, 'data.lock');
  const rejection = (result: PromiseSettledResult<RunningServer>) => (result.status === 'rejected' ? (result.reason as Error).message : '');

  test('a second server on a DATA_DIR in use refuses to start and says who holds it', async () => {
    const first = await startServer({}, { timeoutMs: BOOT_MS });
    try {
      const second = await runBun(['src/main.ts'], { DATA_DIR: first.dataDir, PORT: String(await freePort()), SESSION_SECRET: 'e2e-session-secret-that-is-long-enough-0123456789' });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`cannot start: DATA_DIR ${first.dataDir} is held by a running process (pid ${first.proc.pid}); stop it first`);
      expect((await fetch(`${first.url}/api/health`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    expect(existsSync(lockFileOf(first.dataDir))).toBe(false);
  });

  test('two servers started at once on one DATA_DIR: exactly one listens, the other exits 1 saying it is held', async () => {
    const dataDir = tempDir('boot');
    const starts = await Promise.allSettled([startServer({}, { dataDir, timeoutMs: BOOT_MS }), startServer({}, { dataDir, timeoutMs: BOOT_MS })]);
    const up = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    try {
      expect(up).toHaveLength(1);
      const refused = starts.map(rejection).join('');
      expect(refused).toContain('server exited with 1');
      expect(refused).toContain(`cannot start: DATA_DIR ${dataDir} is held by a running process`);
      expect((await fetch(`${up[0]!.url}/api/health`)).status).toBe(200);
    } finally {
      for (const server of up) expect(await server.stop()).toBe(0);
    }
  });

  test('the lock file of a server killed with SIGKILL, naming its pid, does not block the next start', async () => {
    const dataDir = tempDir('boot');
    const killed = await startServer({}, { dataDir, timeoutMs: BOOT_MS });
    await killed.stop('SIGKILL');
    expect(readFileSync(lockFileOf(dataDir), 'utf8').trim()).toBe(String(killed.proc.pid));
    const next = await startServer({}, { dataDir, timeoutMs: BOOT_MS });
    try {
      expect(readFileSync(lockFileOf(dataDir), 'utf8').trim()).toBe(String(next.proc.pid));
    } finally {
      expect(await next.stop()).toBe(0);
    }
  });

  test('two servers that are both pid 1, each in a pid namespace of its own: only one holds the DATA_DIR', async () => {
    const inNamespace = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'];
    const probe = Bun.spawnSync([...inNamespace, process.execPath, '-e', 'console.log(process.pid)'], { stderr: 'pipe' });
    if (probe.exitCode !== 0 || probe.stdout.toString().trim() !== '1') {
      throw new Error(`this test needs pid namespaces (\`unshare --pid --fork --mount-proc\`, as root); this machine refused: ${probe.stderr.toString().trim() || `exit ${probe.exitCode}, pid ${probe.stdout.toString().trim()}`}`);
    }
    const dataDir = tempDir('boot');
    const first = await startServer({}, { dataDir, timeoutMs: BOOT_MS, wrapper: inNamespace });
    try {
      expect(readFileSync(lockFileOf(dataDir), 'utf8').trim()).toBe('1');
      const second = await Promise.allSettled([startServer({}, { dataDir, timeoutMs: BOOT_MS, wrapper: inNamespace })]);
      if (second[0]!.status === 'fulfilled') await second[0]!.value.stop();
      expect(rejection(second[0]!)).toContain(`cannot start: DATA_DIR ${dataDir} is held by a running process (pid 1)`);
      expect((await fetch(`${first.url}/api/health`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });

  if (process.env.DATABASE_URL) {
    test('on Postgres too a second node on the DATA_DIR refuses before opening anything; the CLI runs beside it', async () => {
      const { url } = await createPostgres({ migrated: false });
      const first = await startServer({ DATABASE_URL: url }, { timeoutMs: BOOT_MS });
      try {
        const second = await runBun(['src/main.ts'], {
          DATA_DIR: first.dataDir,
          DATABASE_URL: url,
          PORT: String(await freePort()),
          SESSION_SECRET: 'e2e-session-secret-that-is-long-enough-0123456789',
        });
        expect(second.code).toBe(1);
        expect(second.stderr).toContain(`cannot start: DATA_DIR ${first.dataDir} is held by a running process (pid ${first.proc.pid}); give each node its own DATA_DIR`);
        expect(second.stdout).not.toContain('migrations applied');
        const cli = await runBun(['src/cli.ts', 'org', 'create', '--name', 'Beside a node'], { DATA_DIR: first.dataDir, DATABASE_URL: url });
        expect(cli.code).toBe(0);
        expect((await fetch(`${first.url}/api/health`)).status).toBe(200);
      } finally {
        expect(await first.stop()).toBe(0);
      }
    });
  }
});
