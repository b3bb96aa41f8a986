import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { sessionCookie, startSession } from '../auth/sessions';
import type { Config } from '../config/config';
import { documented } from '../http/documented';
import { PageOf } from '../http/pagination';
import { strictBody } from '../http/strict-body';
import { acceptInvite, createInvite, listInvites, withdrawInvite } from './invites.service';
import { AcceptInviteBody, CreatedInviteView, InviteBody, InviteParams, InviteView, ListQuery, MemberParams, MemberView, PatchMemberBody } from './members.model';
import { changeRole, listMembers, removeMember } from './members.service';

/**
 * Members, invites and roles (session). Every member reads the lists; only owners invite, change
 * roles and remove (the `'owner'` session option). Accepting an invite needs no session: the
 * link's token is the credential, and the answer signs the invitee in.
 */
export function membersRoutes(deps: AuthDeps & { config: Pick<Config, 'sessionSecret' | 'baseUrl'> }) {
  const { db, config } = deps;
  const secure = config.baseUrl.startsWith('https://');
  return new Elysia({ name: 'members' })
    .use(authPlugin(deps))
    .get('/api/dashboard/members', ({ query, session }) => listMembers({ db }, session.orgId, query), {
      session: true,
      query: ListQuery,
      detail: { summary: 'The members of the organization with their roles, oldest first', ...documented({ 200: ['a page of members', PageOf(MemberView)] }) },
    })
    .patch('/api/dashboard/members/:user_id', ({ params, body, session }) => changeRole({ db }, session, params.user_id, body.role), {
      session: 'owner',
      params: MemberParams,
      body: PatchMemberBody,
      transform: strictBody(PatchMemberBody),
      detail: { summary: "Change a member's role (owners)", ...documented({ 404: ['no such member in the organization'], 409: ['the last owner cannot be demoted'] }) },
    })
    .delete('/api/dashboard/members/:user_id', ({ params, session }) => removeMember({ db }, session, params.user_id), {
      session: 'owner',
      params: MemberParams,
      detail: { summary: "Remove a member (owners); the member's sessions end", ...documented({ 404: ['no such member in the organization'], 409: ['the last owner cannot be removed'] }) },
    })
    .get('/api/dashboard/invites', ({ query, session }) => listInvites({ db }, session.orgId, query), {
      session: true,
      query: ListQuery,
      detail: { summary: 'Open invites (not used, withdrawn or expired), newest first', ...documented({ 200: ['a page of invites', PageOf(InviteView)] }) },
    })
    .post(
      '/api/dashboard/invites',
      async ({ body, session, set }) => {
        set.status = 201;
        return createInvite({ db, baseUrl: config.baseUrl }, session, body);
      },
      {
        session: 'owner',
        body: InviteBody,
        transform: strictBody(InviteBody),
        detail: { summary: 'Invite an email with a role (owners): the one-time link is in the answer, this once', ...documented({ 201: ['the invite and its link', CreatedInviteView], 409: ['already a member'] }) },
      },
    )
    .delete('/api/dashboard/invites/:id', ({ params, session }) => withdrawInvite({ db }, session, params.id), {
      session: 'owner',
      params: InviteParams,
      detail: { summary: 'Withdraw an open invite (owners)', ...documented({ 404: ['no open invite with that id in the organization'] }) },
    })
    .post(
      '/api/dashboard/invites/accept',
      async ({ body, set }) => {
        const user = await acceptInvite({ db }, body);
        const { token, maxAge } = await startSession(db, config.sessionSecret, user);
        set.headers['set-cookie'] = sessionCookie(token, maxAge, secure);
        return { user_id: user.userId, org_id: user.orgId };
      },
      {
        body: AcceptInviteBody,
        transform: strictBody(AcceptInviteBody),
        detail: {
          summary: 'Take an invite up: set a password (new email) or give the account\'s (existing), join, and sign in',
          ...documented({ 200: ['joined and signed in (Set-Cookie: svc_session)'], 401: ["wrong password for the email's account"], 404: ['the invite is unknown, used, withdrawn or expired'] }),
        },
      },
    );
}
