import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { registerOver } from '../support/over-http';
import { runBun } from '../support/process';
import { freePort, startServer, waitForOutput } from '../support/server';
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

  test('a second server on a DATA_DIR in use refuses to start and says who holds it', async () => {
    const first = await startServer({}, { timeoutMs: BOOT_MS });
    try {
      const second = await runBun(['src/main.ts'], { DATA_DIR: first.dataDir, PORT: String(await freePort()), SESSION_SECRET: 'e2e-session-secret-that-is-long-enough-0123456789' });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`held by a running server (pid ${first.proc.pid})`);
      expect((await fetch(`${first.url}/api/health`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });
});
