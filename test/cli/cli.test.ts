import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { checkCredentials } from '../../src/auth/accounts.service';
import { authenticateApiKey } from '../../src/auth/api-keys';
import type { Db } from '../../src/db/db';
import { readMigrations } from '../../src/db/migrate';
import { openDb } from '../../src/db/open';
import { createPostgres } from '../support/db';
import { ROOT, runBun } from '../support/process';
import { startServer } from '../support/server';
import { tempDir } from '../support/temp-dir';

// Each command is a process that opens the store (PGlite boots in seconds on a busy machine).
setDefaultTimeout(180_000);
/** A generous boot deadline: the machine running tests may be busy with other suites. */
const BOOT_MS = 120_000;

const ALL_MIGRATIONS = readMigrations().map((migration) => migration.name);
const jsonLine = (stdout: string) => {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
};

describe('cli: command line', () => {
  const cli = (...args: string[]) => runBun(['src/cli.ts', ...args], { DATA_DIR: tempDir('cli') });

  test('an unknown command, a missing flag or a stray flag prints usage on stderr and exits 2', async () => {
    for (const args of [[], ['frobnicate'], ['org'], ['org', 'delete', '--name', 'x'], ['org', 'create'], ['key', 'revoke'], ['user', 'create', '--org', 'o', '--email', 'a@example.com'], ['org', 'create', '--name', 'x', '--prefix', 'y'], ['migrate', '--verbose']]) {
      const run = await cli(...args);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('usage: npm run cli --');
    }
  });

  test('a missing flag is named', async () => {
    const run = await cli('user', 'create', '--org', 'o', '--email', 'a@example.com');
    expect(run.stderr).toStartWith('user create needs --password');
  });

  test('a bad environment stops it with the variable named', async () => {
    const run = await runBun(['src/cli.ts', 'migrate'], { DATA_DIR: tempDir('cli'), DATABASE_URL: 'mysql://nope' });
    expect(run.code).toBe(78);
    expect(run.stderr).toContain('DATABASE_URL');
  });
});

/** The same scenario against the embedded store and against Postgres. */
function scenario(name: string, setup: () => Promise<{ env: Record<string, string>; open: () => Promise<Db>; close: (db: Db) => Promise<void> }>) {
  describe(`cli on ${name}`, async () => {
    const { env, open, close } = await setup();
    const cli = (args: string[], stdin?: string) => runBun(['src/cli.ts', ...args], env, stdin);
    /** Reads the store between commands (the embedded one allows one process at a time). */
    const inspect = async <T>(fn: (db: Db) => Promise<T>) => {
      const db = await open();
      try {
        return await fn(db);
      } finally {
        await close(db);
      }
    };
    let orgId = '';
    let apiKey = '';
    const email = `cli-${Date.now()}@example.com`;

    test('migrate applies every migration once and prints what it applied', async () => {
      const first = await cli(['migrate']);
      expect(first.code).toBe(0);
      expect(jsonLine(first.stdout)).toEqual({ applied: ALL_MIGRATIONS });
      const second = await cli(['migrate']);
      expect(second.code).toBe(0);
      expect(jsonLine(second.stdout)).toEqual({ applied: [] });
    });

    test('org create prints one JSON line {org_id, api_key}; the key authenticates for that organization', async () => {
      const run = await cli(['org', 'create', '--name', 'Acme Mobile']);
      expect(run.code).toBe(0);
      const created = jsonLine(run.stdout);
      expect(Object.keys(created).sort()).toEqual(['api_key', 'org_id']);
      expect(created.api_key).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
      orgId = created.org_id;
      apiKey = created.api_key;
      await inspect(async (db) => {
        const principal = await authenticateApiKey(db, apiKey);
        expect(principal?.orgId).toBe(orgId);
        const [org] = await db.query<{ name: string }>('SELECT name FROM organizations WHERE id = $1', [orgId]);
        expect(org?.name).toBe('Acme Mobile');
        const audit = await db.query<{ action: string; entity: string; entity_id: string; detail: unknown }>(
          'SELECT action, entity, entity_id, detail FROM audit_log WHERE org_id = $1',
          [orgId],
        );
        expect(audit).toEqual([{ action: 'create', entity: 'api_key', entity_id: principal!.keyId, detail: { via: 'operator' } }]);
      });
    });

    test('user create makes a dashboard user (password from stdin); a taken email or unknown org fails with exit 1', async () => {
      const run = await cli(['user', 'create', '--org', orgId, '--email', email, '--password', '-'], 'correct horse battery\n');
      expect(run.code).toBe(0);
      const created = jsonLine(run.stdout);
      expect(created.org_id).toBe(orgId);
      const taken = await cli(['user', 'create', '--org', orgId, '--email', email.toUpperCase(), '--password', 'another password']);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain('email taken');
      const noOrg = await cli(['user', 'create', '--org', 'no-such-org', '--email', `x${email}`, '--password', 'another password']);
      expect(noOrg.code).toBe(1);
      expect(noOrg.stderr).toContain('no organization has the id no-such-org');
      const weak = await cli(['user', 'create', '--org', orgId, '--email', `y${email}`, '--password', 'short']);
      expect(weak.code).toBe(1);
      expect(weak.stderr).toContain('--password');
      await inspect(async (db) => {
        expect(await checkCredentials(db, email, 'correct horse battery')).toEqual({ userId: created.user_id, orgId });
        const [row] = await db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [created.user_id]);
        expect(row!.password_hash).toStartWith('$argon2id$');
        expect((await db.query('SELECT 1 FROM users WHERE lower(email) IN ($1, $2)', [`x${email}`, `y${email}`])).length).toBe(0);
      });
    });

    test('key revoke --prefix revokes the key at once; a second revoke or a bad prefix fails with exit 1', async () => {
      const prefix = apiKey.slice(0, 17);
      const bad = await cli(['key', 'revoke', '--prefix', 'svc_live_']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('--prefix must be');
      const run = await cli(['key', 'revoke', '--prefix', prefix]);
      expect(run.code).toBe(0);
      const revoked = jsonLine(run.stdout);
      expect(revoked).toMatchObject({ prefix, org_id: orgId });
      const again = await cli(['key', 'revoke', '--prefix', apiKey]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`no live API key has the prefix ${prefix}`);
      await inspect(async (db) => {
        expect(await authenticateApiKey(db, apiKey)).toBeNull();
        const audit = await db.query<{ action: string; entity_id: string; detail: unknown }>(
          "SELECT action, entity_id, detail FROM audit_log WHERE org_id = $1 AND action = 'revoke'",
          [orgId],
        );
        expect(audit).toEqual([{ action: 'revoke', entity_id: revoked.revoked, detail: { via: 'cli' } }]);
      });
    });
  });
}

scenario('the embedded store (DATA_DIR)', async () => {
  const dataDir = tempDir('cli');
  return {
    env: { DATA_DIR: dataDir },
    open: () => openDb({ dataDir, databaseUrl: undefined }),
    close: (db) => db.close(),
  };
});

if (process.env.DATABASE_URL) {
  scenario('Postgres (DATABASE_URL)', async () => {
    const { db, url } = await createPostgres({ migrated: false });
    return { env: { DATABASE_URL: url, DATA_DIR: tempDir('cli') }, open: async () => db, close: async () => {} };
  });
}

describe('cli and a running server', () => {
  test('on an embedded store held by a running server it says so and exits 1; once the server stops it works', async () => {
    const server = await startServer({}, { timeoutMs: BOOT_MS });
    let exit: number | null;
    try {
      const run = await runBun(['src/cli.ts', 'org', 'create', '--name', 'Blocked'], { DATA_DIR: server.dataDir });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`DATA_DIR ${server.dataDir} is held by a running process (pid ${server.proc.pid})`);
      expect(run.stderr).toContain('DATABASE_URL');
    } finally {
      exit = await server.stop();
    }
    expect(exit).toBe(0);
    const after = await runBun(['src/cli.ts', 'org', 'create', '--name', 'Unblocked'], { DATA_DIR: server.dataDir });
    expect(after.code).toBe(0);
    expect(jsonLine(after.stdout).api_key).toMatch(/^svc_live_/);
  });

  test('npm run migrate and npm run cli are wired to the same commands', async () => {
    const dataDir = tempDir('cli');
    const npm = (args: string[]) =>
      Bun.spawn(['npm', '--silent', 'run', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir }, stdout: 'pipe', stderr: 'pipe' });
    const migrate = npm(['migrate']);
    expect(await migrate.exited).toBe(0);
    expect(jsonLine(await new Response(migrate.stdout).text()).applied).toEqual(ALL_MIGRATIONS);
    const org = npm(['cli', '--', 'org', 'create', '--name', 'Via npm']);
    expect(await org.exited).toBe(0);
    expect(Object.keys(jsonLine(await new Response(org.stdout).text())).sort()).toEqual(['api_key', 'org_id']);
  });
});
