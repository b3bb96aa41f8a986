import { Elysia } from 'elysia';
import type { Config } from '../config/config';
import { unauthorized } from '../http/errors';
import { recordAudit } from './audit';
import { changePassword, checkCredentials, register } from './accounts.service';
import { authPlugin, type AuthDeps } from './auth.plugin';
import { documented } from '../http/documented';
import { ChangePasswordBody, LoginBody, OkBody, RegisterBody, SessionsEndedBody, SignedInBody } from './auth.model';
import { clearedSessionCookie, endSession, endSessionsOf, readCookie, SESSION_COOKIE, sessionCookie, startSession, verifySession } from './sessions';

/**
 * Sign-up, sign-in and sign-out, and the signed-in user's password and sessions. A sign-in never
 * ends other sessions; a password change ends all but the caller's, "log out everywhere" all.
 */
export function authRoutes(deps: AuthDeps & { config: Pick<Config, 'sessionSecret' | 'baseUrl'> }) {
  const { db, config } = deps;
  const secure = config.baseUrl.startsWith('https://');
  const signIn = async (user: { userId: string; orgId: string }, set: { headers: Record<string, unknown> }) => {
    const { token, maxAge } = await startSession(db, config.sessionSecret, user);
    set.headers['set-cookie'] = sessionCookie(token, maxAge, secure);
  };
  return new Elysia({ name: 'auth-routes' })
    .use(authPlugin(deps))
    .post(
      '/register',
      async ({ body, set }) => {
        const user = await register(db, body);
        await signIn(user, set);
        set.status = 201;
        return { user_id: user.userId, org_id: user.orgId };
      },
      { body: RegisterBody, detail: { summary: 'Sign up: a new organization and its first user', ...documented({ 201: ['the organization and its first user, signed in (Set-Cookie: svc_session)', SignedInBody], 409: ['email taken'] }) } },
    )
    .post(
      '/login',
      async ({ body, set }) => {
        const user = await checkCredentials(db, body.email, body.password);
        if (!user) throw unauthorized();
        await signIn(user, set);
        return { user_id: user.userId, org_id: user.orgId };
      },
      { body: LoginBody, detail: { summary: 'Sign in', ...documented({ 200: ['signed in (Set-Cookie: svc_session)', SignedInBody], 401: ['wrong email or password'] }) } },
    )
    .post('/logout', async ({ request, set }) => {
      const session = await verifySession(db, config.sessionSecret, readCookie(request.headers.get('cookie'), SESSION_COOKIE));
      if (session) await endSession(db, session.sessionId);
      set.headers['set-cookie'] = clearedSessionCookie(secure);
      return { ok: true };
    }, { detail: { summary: 'Sign out', ...documented({ 200: ['signed out; the cookie cleared', OkBody] }) } })
    .post(
      '/api/dashboard/password',
      async ({ body, session }) => {
        const ended = await changePassword(db, session, { currentPassword: body.current_password, newPassword: body.new_password });
        return { ok: true, ended_sessions: ended };
      },
      { session: 'any-role', body: ChangePasswordBody, detail: { summary: 'Change the password', ...documented({ 200: ["changed; the user's other sessions ended", SessionsEndedBody] }) } },
    )
    .post(
      '/api/dashboard/sessions/revoke-all',
      async ({ session, set }) => {
        const ended = await db.transaction(async (tx) => {
          const count = await endSessionsOf(tx, session);
          await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'revoke', entity: 'session', detail: { ended_sessions: count } });
          return count;
        });
        set.headers['set-cookie'] = clearedSessionCookie(secure);
        return { ok: true, ended_sessions: ended };
      },
      { session: 'any-role', detail: { summary: 'Sign out everywhere', ...documented({ 200: ['every session of the user ended, this one included', SessionsEndedBody] }) } },
    );
}
