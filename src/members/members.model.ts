import { t } from 'elysia';
import { CursorQuery } from '../http/pagination';
import { ROLES, type Role } from '../auth/sessions';

/** Members, invites and roles of an organization (docs/dashboard.md, "Members and roles"). */
const RoleField = t.Union(ROLES.map((role) => t.Literal(role)), { error: `must be one of ${ROLES.join(', ')}` });

export const InviteBody = t.Object(
  {
    email: t.String({ format: 'email', maxLength: 254, error: 'must be an email address' }),
    role: RoleField,
  },
  { additionalProperties: false },
);
export type InviteBody = typeof InviteBody.static;

export const PatchMemberBody = t.Object({ role: RoleField }, { additionalProperties: false });
export type PatchMemberBody = typeof PatchMemberBody.static;

export const MemberParams = t.Object({ user_id: t.String({ minLength: 1, maxLength: 64 }) });
export const InviteParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** An invite link's token: base62, as invites.service makes it. */
export const INVITE_TOKEN_LENGTH = 40;
const InviteToken = t.String({ pattern: `^[A-Za-z0-9]{${INVITE_TOKEN_LENGTH}}$`, error: 'is not an invite link of this service' });
export const InviteTokenParams = t.Object({ token: t.String({ minLength: 1, maxLength: 128 }) });

/** Accepting an invite: a new account's password, or the existing account's to sign in with. */
export const AcceptInviteBody = t.Object(
  { token: InviteToken, password: t.String({ minLength: 8, maxLength: 256, error: 'must be 8 to 256 characters' }) },
  { additionalProperties: false },
);
export type AcceptInviteBody = typeof AcceptInviteBody.static;

export const ListQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
  cursor: CursorQuery,
});
export type ListQuery = typeof ListQuery.static;
export const DEFAULT_LIST_LIMIT = 100;

/** How long an invite link works. */
export const INVITE_DAYS = 7;

export const MemberView = t.Object({ user_id: t.String(), email: t.String(), role: RoleField, joined_at: t.String() });
export type MemberView = typeof MemberView.static;

export const InviteView = t.Object({ id: t.String(), email: t.String(), role: RoleField, created_at: t.String(), expires_at: t.String() });
export type InviteView = typeof InviteView.static;

/** The answer to a new invite: the link is in it this once, and stored only as a hash. */
export const CreatedInviteView = t.Composite([InviteView, t.Object({ url: t.String({ description: 'the one-time link; shown this once' }) })]);

export interface MemberRow {
  user_id: string;
  email: string;
  role: Role;
  created_at: Date;
  /** The keyset's exact timestamp (src/http/pagination.ts, exactTimestamp). */
  created_key: string;
}

export interface InviteRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  created_at: Date;
  expires_at: Date;
}
