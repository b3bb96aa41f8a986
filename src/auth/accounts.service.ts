import type { Db, Queryable } from '../db/db';
import { conflict, fieldError } from '../http/errors';
import { newId } from '../shared/ids';
import { issueApiKey, type IssuedApiKey } from './api-keys';
import { recordAudit } from './audit';
import { endSessionsOf, type SessionPrincipal } from './sessions';

/** Argon2id, as Bun ships it. */
export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id' });

/** A fixed hash to verify against when the email is unknown, so both failures take the same time. */
let decoyHash: Promise<string> | undefined;

export async function createOrganization(db: Queryable, name: string): Promise<string> {
  const id = newId();
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]);
  return id;
}

export async function createUser(db: Queryable, input: { orgId: string; email: string; password: string }): Promise<string> {
  return insertUser(db, { orgId: input.orgId, email: input.email, passwordHash: await hashPassword(input.password) });
}

/** Emails are unique without regard to case; a taken one answers 409 and writes nothing. */
async function insertUser(db: Queryable, input: { orgId: string; email: string; passwordHash: string }): Promise<string> {
  const rows = await db.query(
    `INSERT INTO users (id, org_id, email, password_hash) VALUES ($1, $2, $3, $4) ON CONFLICT (lower(email)) DO NOTHING RETURNING id`,
    [newId(), input.orgId, input.email, input.passwordHash],
  );
  const row = rows[0] as { id: string } | undefined;
  if (!row) throw conflict('email taken');
  return row.id;
}

/**
 * Registration makes the organization and its first user together, or neither. The password
 * is hashed before the transaction opens, so no connection is held during argon2.
 */
export async function register(db: Db, input: { email: string; password: string; organization: string }) {
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const orgId = await createOrganization(tx, input.organization);
    const userId = await insertUser(tx, { orgId, email: input.email, passwordHash });
    return { userId, orgId };
  });
}

export async function organizationExists(db: Queryable, orgId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM organizations WHERE id = $1', [orgId])).length > 0;
}

export async function checkCredentials(db: Queryable, email: string, password: string): Promise<{ userId: string; orgId: string } | null> {
  const rows = await db.query<{ id: string; org_id: string; password_hash: string }>(
    'SELECT id, org_id, password_hash FROM users WHERE lower(email) = lower($1)',
    [email],
  );
  const user = rows[0];
  decoyHash ??= hashPassword('decoy password that matches nothing');
  const valid = await Bun.password.verify(password, user?.password_hash ?? (await decoyHash));
  return user && valid ? { userId: user.id, orgId: user.org_id } : null;
}

/**
 * A signed-in user's password change: the current password must match (400 naming
 * `current_password` otherwise). The new hash, the end of every other session of the user and
 * the audit row are one transaction; argon2 runs before it opens. Answers how many sessions ended.
 */
export async function changePassword(db: Db, session: SessionPrincipal, input: { currentPassword: string; newPassword: string }): Promise<number> {
  const rows = await db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1 AND org_id = $2', [session.userId, session.orgId]);
  const stored = rows[0]?.password_hash;
  if (!stored || !(await Bun.password.verify(input.currentPassword, stored))) throw fieldError('current_password', 'does not match');
  const passwordHash = await hashPassword(input.newPassword);
  return db.transaction(async (tx) => {
    await tx.query('UPDATE users SET password_hash = $1 WHERE id = $2 AND org_id = $3', [passwordHash, session.userId, session.orgId]);
    const ended = await endSessionsOf(tx, session, session.sessionId);
    await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'update', entity: 'password', entityId: session.userId, detail: { ended_sessions: ended } });
    return ended;
  });
}

/** Operator bootstrap (CLI): an organization with its first API key. */
export async function createOrganizationWithKey(db: Db, name: string): Promise<{ orgId: string; key: IssuedApiKey }> {
  return db.transaction(async (tx) => {
    const orgId = await createOrganization(tx, name);
    const key = await issueApiKey(tx, { orgId, name: 'default' });
    await recordAudit(tx, { orgId }, { action: 'create', entity: 'api_key', entityId: key.id, detail: { via: 'operator' } });
    return { orgId, key };
  });
}
