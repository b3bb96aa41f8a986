import type { Queryable } from '../db/db';
import { exactTimestamp, keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { Role } from '../auth/sessions';
import type { MemberRow } from './members.model';

/** Oldest member first: the owner who made the organization heads the list. */
export const MEMBERS_KEYSET: Keyset = {
  kind: 'values',
  list: 'members',
  columns: [
    { column: 'm.created_at', cast: 'timestamptz', direction: 'asc' },
    { column: 'm.user_id', cast: 'text', direction: 'asc' },
  ],
};

export function listMembers(db: Queryable, orgId: string, page: PageRequest): Promise<MemberRow[]> {
  const after = keysetCondition(MEMBERS_KEYSET, page.after, 3);
  return db.query<MemberRow>(
    `SELECT m.user_id, u.email, m.role, m.created_at, ${exactTimestamp('m.created_at')} AS created_key
     FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.org_id = $1 AND ${after.sql} ORDER BY ${keysetOrder(MEMBERS_KEYSET)} LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}

/**
 * The organization's owners, locked until the transaction ends: two owners demoting each other at
 * once cannot both pass the last-owner check.
 */
export async function lockOwners(tx: Queryable, orgId: string): Promise<string[]> {
  const rows = await tx.query<{ user_id: string }>("SELECT user_id FROM memberships WHERE org_id = $1 AND role = 'owner' ORDER BY user_id FOR UPDATE", [orgId]);
  return rows.map((row) => row.user_id);
}

export async function findMember(db: Queryable, orgId: string, userId: string): Promise<{ role: Role; email: string } | undefined> {
  const rows = await db.query<{ role: Role; email: string }>(
    'SELECT m.role, u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 AND m.user_id = $2',
    [orgId, userId],
  );
  return rows[0];
}

export async function updateRole(tx: Queryable, orgId: string, userId: string, role: Role): Promise<void> {
  await tx.query('UPDATE memberships SET role = $3 WHERE org_id = $1 AND user_id = $2', [orgId, userId, role]);
}

export async function deleteMembership(tx: Queryable, orgId: string, userId: string): Promise<void> {
  await tx.query('DELETE FROM memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId]);
}

export async function isMemberByEmail(db: Queryable, orgId: string, email: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 AND lower(u.email) = lower($2)', [orgId, email]);
  return rows.length > 0;
}
