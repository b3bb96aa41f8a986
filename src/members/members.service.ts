import { recordAudit } from '../auth/audit';
import { endSessionsOf, type Role, type SessionPrincipal } from '../auth/sessions';
import type { Db, Queryable } from '../db/db';
import { conflict, notFound } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { DEFAULT_LIST_LIMIT, type ListQuery, type MemberRow, type MemberView } from './members.model';
import * as repo from './members.repo';

const view = (row: MemberRow): MemberView => ({ user_id: row.user_id, email: row.email, role: row.role, joined_at: row.created_at.toISOString() });

export function listMembers({ db }: { db: Db }, orgId: string, query: ListQuery = {}): Promise<Page<MemberView>> {
  return readPage({
    keyset: repo.MEMBERS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_LIST_LIMIT,
    fetch: (page) => repo.listMembers(db, orgId, page),
    keyOf: (row) => [row.created_key, row.user_id],
    view,
  });
}

/**
 * Checks the rule of the last owner inside the caller's transaction, the owners locked: an
 * organization always keeps one owner who can manage it. Answers the member as they were.
 */
async function lockedMember(tx: Queryable, orgId: string, userId: string, leavesOwnership: boolean) {
  const owners = await repo.lockOwners(tx, orgId);
  const member = await repo.findMember(tx, orgId, userId);
  if (!member) throw notFound('member not found');
  if (leavesOwnership && member.role === 'owner' && owners.length === 1) throw conflict('the last owner cannot be removed or demoted');
  return member;
}

/** An owner's change of a member's role; it counts from the member's next request. */
export async function changeRole({ db }: { db: Db }, session: SessionPrincipal, userId: string, role: Role): Promise<{ user_id: string; role: Role }> {
  await db.transaction(async (tx) => {
    const before = await lockedMember(tx, session.orgId, userId, role !== 'owner');
    if (before.role === role) return;
    await repo.updateRole(tx, session.orgId, userId, role);
    await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'update', entity: 'member', entityId: userId, detail: { email: before.email, role: { from: before.role, to: role } } });
  });
  return { user_id: userId, role };
}

/** An owner removes a member: the membership goes and so do the member's sessions in this organization. */
export async function removeMember({ db }: { db: Db }, session: SessionPrincipal, userId: string): Promise<{ ok: true; user_id: string }> {
  await db.transaction(async (tx) => {
    const before = await lockedMember(tx, session.orgId, userId, true);
    await repo.deleteMembership(tx, session.orgId, userId);
    const ended = await endSessionsOf(tx, { userId, orgId: session.orgId });
    await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'remove', entity: 'member', entityId: userId, detail: { email: before.email, role: before.role, ended_sessions: ended } });
  });
  return { ok: true, user_id: userId };
}
