import type { Db, Queryable } from '../db/db';
import { conflict } from '../http/errors';
import { newId } from '../shared/ids';
import { issueApiKey, type IssuedApiKey } from './api-keys';

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
  const id = newId();
  const rows = await db.query(
    `INSERT INTO users (id, org_id, email, password_hash) VALUES ($1, $2, $3, $4) ON CONFLICT (lower(email)) DO NOTHING RETURNING id`,
    [id, input.orgId, input.email, await hashPassword(input.password)],
  );
  if (rows.length === 0) throw conflict('email taken');
  return id;
}

/** Registration makes the organization and its first user together, or neither. */
export async function register(db: Db, input: { email: string; password: string; organization: string }) {
  return db.transaction(async (tx) => {
    const orgId = await createOrganization(tx, input.organization);
    const userId = await createUser(tx, { orgId, email: input.email, password: input.password });
    return { userId, orgId };
  });
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

/** Operator bootstrap (CLI): an organization with its first API key. */
export async function createOrganizationWithKey(db: Db, name: string): Promise<{ orgId: string; key: IssuedApiKey }> {
  return db.transaction(async (tx) => {
    const orgId = await createOrganization(tx, name);
    const key = await issueApiKey(tx, { orgId, name: 'default' });
    return { orgId, key };
  });
}
