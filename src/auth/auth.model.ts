import { t } from 'elysia';
import { CursorQuery, PageOf } from '../http/pagination';
import { KeyRateLimitField } from './key-rate-limit';

/** A password being set (registration, password change); one being checked is only bounded. */
const NewPassword = t.String({ minLength: 8, maxLength: 256 });
const GivenPassword = t.String({ minLength: 1, maxLength: 256 });

export const RegisterBody = t.Object({
  email: t.String({ format: 'email', maxLength: 254 }),
  password: NewPassword,
  organization: t.String({ minLength: 1, maxLength: 200 }),
});
export type RegisterBody = typeof RegisterBody.static;

export const LoginBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 254 }),
  password: GivenPassword,
});
export type LoginBody = typeof LoginBody.static;

export const ChangePasswordBody = t.Object({ current_password: GivenPassword, new_password: NewPassword });
export type ChangePasswordBody = typeof ChangePasswordBody.static;

export const CreateKeyBody = t.Object(
  { name: t.String({ minLength: 1, maxLength: 100 }), rate_limit_per_minute: t.Optional(KeyRateLimitField) },
  { additionalProperties: false },
);
export type CreateKeyBody = typeof CreateKeyBody.static;
/** The one thing of a key that changes after it is made; null removes its own limit. */
export const PatchKeyBody = t.Object({ rate_limit_per_minute: KeyRateLimitField }, { additionalProperties: false });
export type PatchKeyBody = typeof PatchKeyBody.static;

/** Answers of the session routes, as models for the OpenAPI document. */
export const SignedInBody = t.Object({ user_id: t.String(), org_id: t.String() });
export const OkBody = t.Object({ ok: t.Literal(true) });
export const KeyRevokedBody = t.Object({ ok: t.Literal(true), id: t.String() });
export const SessionsEndedBody = t.Object({ ok: t.Literal(true), ended_sessions: t.Integer({ minimum: 0 }) });
const RateLimitAnswer = t.Union([t.Integer({ minimum: 1 }), t.Null()], { description: "the key's own requests a minute; null: none (KEY_RATE_LIMIT, when set, applies)" });
export const CreatedKeyBody = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String(),
  api_key: t.String({ description: 'shown in this answer only' }),
  rate_limit_per_minute: RateLimitAnswer,
});
export const KeyBody = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String(),
  rate_limit_per_minute: RateLimitAnswer,
  created_at: t.String(),
  last_used_at: t.Union([t.String(), t.Null()]),
  revoked_at: t.Union([t.String(), t.Null()]),
});
export const KeyListBody = PageOf(KeyBody, 'newest first');
export const ListKeysQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
  cursor: CursorQuery,
});
export const KeyParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
