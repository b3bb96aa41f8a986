import type { Db, Queryable } from '../db/db';
import { conflict, fieldError } from '../http/errors';
import { newId } from '../shared/ids';
import { issueApiKey, type IssuedApiKey } from './api-keys';
import { recordAudit } from './audit';
import { endSessionsOf, type Role, type SessionPrincipal } from './sessions';

/** Argon2id, as Bun ships it. */
export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id' });

/** A fixed hash to verify against when the email is unknown, so both failures take the same time. */
let decoyHash: Promise<string> | undefined;

export async function createOrganization(db: Queryable, name: string): Promise<string> {
  const id = newId();
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]);
  return id;
}

/** A user and their membership of `orgId`: admin unless a role is given (the CLI's operator adds admins). */
export async function createUser(db: Queryable, input: { orgId: string; email: string; password: string; role?: Role }): Promise<string> {
  const userId = await insertUser(db, { orgId: input.orgId, email: input.email, passwordHash: await hashPassword(input.password) });
  await addMembership(db, { orgId: input.orgId, userId, role: input.role ?? 'admin' });
  return userId;
}

/** Makes the user a member of the organization with `role`; a member already there keeps their role. */
export async function addMembership(db: Queryable, input: { orgId: string; userId: string; role: Role }): Promise<boolean> {
  const rows = await db.query(
    'INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT (org_id, user_id) DO NOTHING RETURNING user_id',
    [input.orgId, input.userId, input.role],
  );
  return rows.length > 0;
}


/** Emails are unique without regard to case; a taken one answers 409 and writes nothing. */
export async function insertUser(db: Queryable, input: { orgId: string; email: string; passwordHash: string }): Promise<string> {
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
    // The first user of an organization is its owner.
    await addMembership(tx, { orgId, userId, role: 'owner' });
    return { userId, orgId };
  });
}

export async function organizationExists(db: Queryable, orgId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM organizations WHERE id = $1', [orgId])).length > 0;
}

/**
 * The user behind an email and password, and the organization sign-in opens: the user's own
 * (users.org_id, the one they made or last joined) while they are a member of it, else the one
 * they joined last. A user who is a member of none signs in nowhere: null, as for a wrong password.
 */
export async function checkCredentials(db: Queryable, email: string, password: string): Promise<{ userId: string; orgId: string } | null> {
  const rows = await db.query<{ id: string; org_id: string | null; password_hash: string }>(
    `SELECT u.id, m.org_id, u.password_hash FROM users u
     LEFT JOIN LATERAL (
       SELECT org_id FROM memberships WHERE user_id = u.id ORDER BY (org_id = u.org_id) DESC, created_at DESC LIMIT 1
     ) m ON TRUE
     WHERE lower(u.email) = lower($1)`,
    [email],
  );
  const user = rows[0];
  decoyHash ??= hashPassword('decoy password that matches nothing');
  const valid = await Bun.password.verify(password, user?.password_hash ?? (await decoyHash));
  return user && valid && user.org_id ? { userId: user.id, orgId: user.org_id } : null;
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
