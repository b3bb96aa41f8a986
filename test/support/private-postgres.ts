import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server';

/**
 * A Postgres server of the test's own (initdb on a free port), for tests that stop and start
 * Postgres: the machine's server is shared with the rest of the suite. Needs the server binaries
 * (Debian's postgresql package); as root the server runs as the `postgres` user.
 */
export interface PrivatePostgres {
  url: string;
  stop(): void;
  start(): void;
  remove(): void;
}

function binaries(): string {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort().at(-1) : undefined;
  if (!version || !existsSync(join(root, version, 'bin', 'initdb'))) throw new Error('private Postgres needs the server binaries under /usr/lib/postgresql');
  return join(root, version, 'bin');
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binaries();
  const port = await freePort();
  // Outside the run's temporary directory: the server's own user must be able to reach it.
  const dir = mkdtempSync('/tmp/svc-private-pg-');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const postgresUser = Bun.spawnSync(['id', '-u', 'postgres'], { stdout: 'pipe' });
    const uid = Number(postgresUser.stdout.toString().trim());
    chownSync(dir, uid, uid);
  }
  const run = (args: string[]) => {
    const command = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
    const result = Bun.spawnSync(command, { stdout: 'pipe', stderr: 'pipe', cwd: '/tmp' });
    if (result.exitCode !== 0) throw new Error(`${args.join(' ')}: ${result.stderr.toString()}${result.stdout.toString()}`);
  };
  const data = join(dir, 'data');
  run([join(bin, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const pgCtl = (action: string[]) => run([join(bin, 'pg_ctl'), '-D', data, '-l', join(dir, 'log'), '-o', options, '-w', ...action]);
  pgCtl(['start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => pgCtl(['stop', '-m', 'fast']),
    start: () => pgCtl(['start']),
    remove() {
      try {
        pgCtl(['stop', '-m', 'immediate']);
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
