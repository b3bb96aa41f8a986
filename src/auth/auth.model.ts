import { t } from 'elysia';

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

export const CreateKeyBody = t.Object({ name: t.String({ minLength: 1, maxLength: 100 }) });
export const KeyParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
