import { Elysia } from 'elysia';
import type { Config } from '../config';
import { unauthorized } from '../http/errors';
import { checkCredentials, register } from './accounts.service';
import { authPlugin, type AuthDeps } from './auth.plugin';
import { LoginBody, RegisterBody } from './auth.model';
import { clearedSessionCookie, endSession, readCookie, SESSION_COOKIE, sessionCookie, startSession, verifySession } from './sessions';

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
      { body: RegisterBody },
    )
    .post(
      '/login',
      async ({ body, set }) => {
        const user = await checkCredentials(db, body.email, body.password);
        if (!user) throw unauthorized();
        await signIn(user, set);
        return { user_id: user.userId, org_id: user.orgId };
      },
      { body: LoginBody },
    )
    .post('/logout', async ({ request, set }) => {
      const session = await verifySession(db, config.sessionSecret, readCookie(request.headers.get('cookie'), SESSION_COOKIE));
      if (session) await endSession(db, session.sessionId);
      set.headers['set-cookie'] = clearedSessionCookie(secure);
      return { ok: true };
    });
}
