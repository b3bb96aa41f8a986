import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { Role } from '../auth/sessions';
import type { InviteRow } from './members.model';

const COLUMNS = 'id, org_id, email, role, created_at, expires_at';
/** Open: neither used, withdrawn nor expired. */
const OPEN = 'accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()';

export async function insertInvite(
  tx: Queryable,
  invite: { id: string; orgId: string; email: string; role: Role; tokenHash: string; invitedBy: string; days: number },
): Promise<InviteRow> {
  const rows = await tx.query<InviteRow>(
    `INSERT INTO invites (id, org_id, email, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7)) RETURNING ${COLUMNS}`,
    [invite.id, invite.orgId, invite.email, invite.role, invite.tokenHash, invite.invitedBy, invite.days],
  );
  return rows[0]!;
}

/** Newest first; the cursor names the last one shown. */
export const INVITES_KEYSET: Keyset = { kind: 'anchor', list: 'invites', table: 'invites', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listOpenInvites(db: Queryable, orgId: string, page: PageRequest): Promise<InviteRow[]> {
  const after = keysetCondition(INVITES_KEYSET, page.after, 3);
  return db.query<InviteRow>(`SELECT ${COLUMNS} FROM invites WHERE org_id = $1 AND ${OPEN} AND ${after.sql} ORDER BY ${keysetOrder(INVITES_KEYSET)} LIMIT $2`, [orgId, page.limit, ...after.params]);
}

/** The open invite a link's token names (by its SHA-256, a value the caller cannot steer). */
export async function findOpenInvite(db: Queryable, tokenHash: string): Promise<(InviteRow & { org_name: string }) | undefined> {
  const rows = await db.query<InviteRow & { org_name: string }>(
    `SELECT i.id, i.org_id, i.email, i.role, i.created_at, i.expires_at, o.name AS org_name
     FROM invites i JOIN organizations o ON o.id = i.org_id WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}

/** Uses the invite up: of two acceptances at once, one gets the row and the other nothing. */
export async function claimInvite(tx: Queryable, id: string, userId: string): Promise<boolean> {
  const rows = await tx.query(`UPDATE invites SET accepted_at = now(), accepted_by = $2 WHERE id = $1 AND ${OPEN} RETURNING id`, [id, userId]);
  return rows.length > 0;
}

export async function revokeInvite(tx: Queryable, orgId: string, id: string): Promise<InviteRow | undefined> {
  const rows = await tx.query<InviteRow>(`UPDATE invites SET revoked_at = now() WHERE id = $1 AND org_id = $2 AND ${OPEN} RETURNING ${COLUMNS}`, [id, orgId]);
  return rows[0];
}
