import { t } from 'elysia';

export const RegisterBody = t.Object({
  email: t.String({ format: 'email', maxLength: 254 }),
  password: t.String({ minLength: 8, maxLength: 256 }),
  organization: t.String({ minLength: 1, maxLength: 200 }),
});
export type RegisterBody = typeof RegisterBody.static;

export const LoginBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 254 }),
  password: t.String({ minLength: 1, maxLength: 256 }),
});
export type LoginBody = typeof LoginBody.static;

export const CreateKeyBody = t.Object({ name: t.String({ minLength: 1, maxLength: 100 }) });
export const KeyParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
