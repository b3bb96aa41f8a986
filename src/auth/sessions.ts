import { jwtVerify, SignJWT } from 'jose';
import type { Queryable } from '../db/db';
import { newId } from '../shared/ids';

export const SESSION_COOKIE = 'svc_session';
const SESSION_DAYS = 14;

/** A member's role in an organization (docs/security.md, "Roles"). */
export const ROLES = ['owner', 'admin', 'analyst'] as const;
export type Role = (typeof ROLES)[number];

export interface SessionPrincipal {
  sessionId: string;
  userId: string;
  orgId: string;
  /** Read from the membership on every request, so a role change or a removal counts from the next one. */
  role: Role;
}

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** A signed JWT (HS256) naming a session row; the row lets logout revoke it before it expires. */
export async function startSession(db: Queryable, secret: string, user: { userId: string; orgId: string }): Promise<{ token: string; maxAge: number }> {
  const sessionId = newId();
  const maxAge = SESSION_DAYS * 86_400;
  await db.query(
    `INSERT INTO sessions (id, user_id, org_id, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [sessionId, user.userId, user.orgId, maxAge],
  );
  const token = await new SignJWT({ org: user.orgId })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user.userId)
    .setJti(sessionId)
    .setIssuedAt()
    .setExpirationTime(`${SESSION_DAYS}d`)
    .sign(keyOf(secret));
  return { token, maxAge };
}

export async function verifySession(db: Queryable, secret: string, token: string | undefined): Promise<SessionPrincipal | null> {
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), { algorithms: ['HS256'] });
    if (!payload.jti || !payload.sub) return null;
    // No membership (the user was removed) means no session, whatever the cookie says.
    const rows = await db.query<{ user_id: string; org_id: string; role: Role }>(
      `SELECT s.user_id, s.org_id, m.role FROM sessions s JOIN memberships m ON m.org_id = s.org_id AND m.user_id = s.user_id
       WHERE s.id = $1 AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [payload.jti],
    );
    const row = rows[0];
    if (!row || row.user_id !== payload.sub) return null;
    return { sessionId: payload.jti, userId: row.user_id, orgId: row.org_id, role: row.role };
  } catch {
    return null;
  }
}

export async function endSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query('UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [sessionId]);
}

/** Ends every live session of the user but `keep` (none kept without it); answers how many ended. */
export async function endSessionsOf(db: Queryable, user: { userId: string; orgId: string }, keep?: string): Promise<number> {
  const ended = await db.query(
    `UPDATE sessions SET revoked_at = now()
     WHERE user_id = $1 AND org_id = $2 AND revoked_at IS NULL AND expires_at > now() AND id IS DISTINCT FROM $3
     RETURNING id`,
    [user.userId, user.orgId, keep ?? null],
  );
  return ended.length;
}

export function sessionCookie(token: string, maxAge: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
