import { addMembership, hashPassword, insertUser } from '../auth/accounts.service';
import { recordAudit } from '../auth/audit';
import type { SessionPrincipal } from '../auth/sessions';
import type { Db } from '../db/db';
import { conflict, notFound, unauthorized } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { randomToken, sha256Hex } from '../shared/crypto/secrets';
import { newId } from '../shared/ids';
import { type AcceptInviteBody, DEFAULT_LIST_LIMIT, INVITE_DAYS, INVITE_TOKEN_LENGTH, type InviteBody, type InviteRow, type InviteView, type ListQuery } from './members.model';
import { isMemberByEmail } from './members.repo';
import * as repo from './invites.repo';

const view = (row: InviteRow): InviteView => ({ id: row.id, email: row.email, role: row.role, created_at: row.created_at.toISOString(), expires_at: row.expires_at.toISOString() });

/** Where an invite's token is opened: the web app's /invite page. */
export const inviteUrl = (baseUrl: string, token: string) => `${baseUrl.replace(/\/$/, '')}/invite/${token}`;

/**
 * An owner invites an email with a role. No mail is sent: the answer carries the link this once,
 * and only the token's SHA-256 is kept. An email already in the organization is 409.
 */
export async function createInvite({ db, baseUrl }: { db: Db; baseUrl: string }, session: SessionPrincipal, body: InviteBody): Promise<InviteView & { url: string }> {
  if (await isMemberByEmail(db, session.orgId, body.email)) throw conflict('already a member');
  const token = randomToken(INVITE_TOKEN_LENGTH);
  const row = await db.transaction(async (tx) => {
    const invite = await repo.insertInvite(tx, { id: newId(), orgId: session.orgId, email: body.email, role: body.role, tokenHash: sha256Hex(token), invitedBy: session.userId, days: INVITE_DAYS });
    await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'invite', entity: 'member', entityId: invite.id, detail: { email: body.email, role: body.role } });
    return invite;
  });
  return { ...view(row), url: inviteUrl(baseUrl, token) };
}

export function listInvites({ db }: { db: Db }, orgId: string, query: ListQuery = {}): Promise<Page<InviteView>> {
  return readPage({ keyset: repo.INVITES_KEYSET, orgId, query, defaultLimit: DEFAULT_LIST_LIMIT, fetch: (page) => repo.listOpenInvites(db, orgId, page), keyOf: (row) => [row.id], view });
}

/** Withdraws an open invite: its link stops working. Unknown, foreign, used or expired: 404. */
export async function withdrawInvite({ db }: { db: Db }, session: SessionPrincipal, id: string): Promise<{ ok: true; id: string }> {
  await db.transaction(async (tx) => {
    const invite = await repo.revokeInvite(tx, session.orgId, id);
    if (!invite) throw notFound('invite not found');
    await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'revoke', entity: 'invite', entityId: id, detail: { email: invite.email, role: invite.role } });
  });
  return { ok: true, id };
}

/** What the invite page shows about a token: the organization, the email and whether it has an account. */
export async function readInvite({ db }: { db: Db }, token: string): Promise<{ orgName: string; email: string; role: string; hasAccount: boolean } | null> {
  if (!new RegExp(`^[A-Za-z0-9]{${INVITE_TOKEN_LENGTH}}$`).test(token)) return null;
  const invite = await repo.findOpenInvite(db, sha256Hex(token));
  if (!invite) return null;
  const account = await db.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [invite.email]);
  return { orgName: invite.org_name, email: invite.email, role: invite.role, hasAccount: account.length > 0 };
}

/**
 * The invitee takes the link up: a new email gets an account with the password given, an email
 * with an account signs in with its password (401 when wrong). The membership, the use of the
 * invite and the audit row are one transaction; the invite works once. The organization joined
 * becomes the one sign-in opens. An invite unknown, used, withdrawn or expired is 404.
 */
export async function acceptInvite({ db }: { db: Db }, body: AcceptInviteBody): Promise<{ userId: string; orgId: string }> {
  const invite = await repo.findOpenInvite(db, sha256Hex(body.token));
  if (!invite) throw notFound('invite not found or expired');
  const existing = (await db.query<{ id: string; password_hash: string }>('SELECT id, password_hash FROM users WHERE lower(email) = lower($1)', [invite.email]))[0];
  if (existing && !(await Bun.password.verify(body.password, existing.password_hash))) throw unauthorized();
  const passwordHash = existing ? null : await hashPassword(body.password);
  return db.transaction(async (tx) => {
    const userId = existing?.id ?? (await insertUser(tx, { orgId: invite.org_id, email: invite.email, passwordHash: passwordHash! }));
    if (!(await repo.claimInvite(tx, invite.id, userId))) throw notFound('invite not found or expired');
    const joined = await addMembership(tx, { orgId: invite.org_id, userId, role: invite.role });
    await tx.query('UPDATE users SET org_id = $2 WHERE id = $1', [userId, invite.org_id]);
    await recordAudit(tx, { orgId: invite.org_id, userId }, { action: 'join', entity: 'member', entityId: userId, detail: { email: invite.email, role: invite.role, invite_id: invite.id, ...(joined ? {} : { already_member: true }), ...(existing ? {} : { new_account: true }) } });
    return { userId, orgId: invite.org_id };
  });
}
