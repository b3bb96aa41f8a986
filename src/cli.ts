import { Value } from '@sinclair/typebox/value';
import { parseArgs } from 'node:util';
import { createOrganizationWithKey, createUser, organizationExists } from './auth/accounts.service';
import { API_KEY_PATTERN, revokeApiKeyByPrefix } from './auth/api-keys';
import { recordAudit } from './auth/audit';
import { RegisterBody } from './auth/auth.model';
import { ConfigError, loadConfig } from './config/config';
import type { Db } from './db/db';
import { migrate } from './db/migrate';
import { openDb } from './db/open';
import { errorMessage } from './shared/error-message';

const USAGE = `usage: npm run cli -- <command> [flags]

  migrate                                      apply pending migrations
  org create --name <name>                     create an organization and its first API key
  key revoke --prefix <prefix>                 revoke an API key by its prefix (svc_live_ + 8 characters;
                                               the full key is accepted too)
  user create --org <org_id> --email <email> --password <password>
                                               create a dashboard user; --password - reads it from stdin

Runs against DATABASE_URL when set, else the embedded store under DATA_DIR (default ./data).
Success prints one JSON line on stdout. Exit codes: 0 done, 1 failed, 2 usage, 78 bad configuration.`;

/** A failure the operator can act on: printed as is, exit 1. */
class CliFailure extends Error {}
/** A malformed command line: usage on stderr, exit 2. */
class UsageError extends Error {}

const PREFIX_PATTERN = /^svc_live_[A-Za-z0-9]{8}$/;

type Flags = Record<string, string | undefined>;
interface Command {
  flags: string[];
  /** `flag(name)` is one of `flags`, present (checked before run). */
  run(db: Db, flag: (name: string) => string): Promise<Record<string, unknown>>;
}

const COMMANDS: Record<string, Command> = {
  migrate: {
    flags: [],
    // The migrations already ran when the store was opened; report what that applied.
    run: async () => ({}),
  },
  'org create': {
    flags: ['name'],
    async run(db, flag) {
      const name = flag('name');
      if (name.trim() === '' || name.length > 200) throw new CliFailure('--name must be 1 to 200 characters');
      const { orgId, key } = await createOrganizationWithKey(db, name.trim());
      return { org_id: orgId, api_key: key.api_key };
    },
  },
  'key revoke': {
    flags: ['prefix'],
    async run(db, flag) {
      const prefix = flag('prefix');
      const wanted = API_KEY_PATTERN.test(prefix) ? prefix.slice(0, 'svc_live_'.length + 8) : prefix;
      if (!PREFIX_PATTERN.test(wanted)) throw new CliFailure('--prefix must be svc_live_ followed by 8 characters (or the full key)');
      const revoked = await db.transaction(async (tx) => {
        const key = await revokeApiKeyByPrefix(tx, wanted);
        if (key) await recordAudit(tx, { orgId: key.org_id }, { action: 'revoke', entity: 'api_key', entityId: key.id, detail: { via: 'cli' } });
        return key;
      });
      if (!revoked) throw new CliFailure(`no live API key has the prefix ${wanted}`);
      return { revoked: revoked.id, prefix: wanted, org_id: revoked.org_id };
    },
  },
  'user create': {
    flags: ['org', 'email', 'password'],
    async run(db, flag) {
      const [org, email, password] = [flag('org'), flag('email'), flag('password')];
      const secret = password === '-' ? (await Bun.stdin.text()).replace(/\r?\n$/, '') : password;
      if (!Value.Check(RegisterBody.properties.email, email)) throw new CliFailure('--email must be an email address');
      if (!Value.Check(RegisterBody.properties.password, secret)) throw new CliFailure('--password must be 8 to 256 characters');
      if (!(await organizationExists(db, org))) throw new CliFailure(`no organization has the id ${org}`);
      const userId = await db.transaction(async (tx) => {
        const id = await createUser(tx, { orgId: org, email, password: secret });
        await recordAudit(tx, { orgId: org }, { action: 'create', entity: 'user', entityId: id, detail: { via: 'cli' } });
        return id;
      });
      return { user_id: userId, org_id: org };
    },
  },
};

function parseCommandLine(argv: string[]): { name: string; command: Command; flag: (name: string) => string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { name: { type: 'string' }, prefix: { type: 'string' }, org: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const name = parsed.positionals.join(' ');
  const command = COMMANDS[name];
  if (!command) throw new UsageError(name ? `unknown command: ${name}` : 'no command given');
  const given = parsed.values as Flags;
  const unexpected = Object.keys(given).filter((flag) => !command.flags.includes(flag));
  if (unexpected.length > 0) throw new UsageError(`${name} does not take --${unexpected.join(', --')}`);
  const missing = command.flags.filter((flag) => given[flag] === undefined);
  if (missing.length > 0) throw new UsageError(`${name} needs --${missing.join(', --')}`);
  return { name, command, flag: (flag) => given[flag] ?? '' };
}

export async function runCli(argv: string[]): Promise<number> {
  let invocation;
  try {
    invocation = parseCommandLine(argv);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  let db: Db | undefined;
  try {
    const config = loadConfig();
    db = await openDb(config);
    const applied = await migrate(db);
    const result = await invocation.command.run(db, invocation.flag);
    console.log(JSON.stringify(invocation.name === 'migrate' ? { applied } : result));
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      return 78;
    }
    // CliFailure, DataDirBusy ("held by a running process"), HttpError ("email taken"),
    // an unreachable database: each message already says what is wrong.
    console.error(`error: ${errorMessage(error)}`);
    return 1;
  } finally {
    await db?.close().catch(() => {});
  }
}

if (import.meta.main) process.exit(await runCli(process.argv.slice(2)));
