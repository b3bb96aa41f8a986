import { expect } from 'bun:test';
import { newId } from '../../src/shared/ids';
import { body, type TestApp } from './app';

/** The web app's origin: session writes from any other are refused (src/http/session-writes.ts). */
export const ORIGIN = 'http://api.test.local';

export interface Member {
  cookie: string;
  userId: string;
  orgId: string;
  email: string;
}

export const freshEmail = (label = 'm') => `${label}${newId().toLowerCase()}@example.com`;
export const PASSWORD = 'correct horse';

/** A session call as the web app's script makes it: the cookie, the app's Origin, JSON. */
export const sessionCall = (t: TestApp) => (cookie: string, method: string, path: string, json?: unknown) => t.request(path, { method, headers: { cookie, origin: ORIGIN }, json });

/** A new organization and its first user, its owner. */
export async function registerOwner(t: TestApp): Promise<Member> {
  const email = freshEmail('owner');
  const res = await t.request('/register', { method: 'POST', headers: { origin: ORIGIN }, json: { email, password: PASSWORD, organization: 'Acme' } });
  expect(res.status).toBe(201);
  const answer = await body(res);
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, userId: answer.user_id, orgId: answer.org_id, email };
}

/** The token of an invite link (the last path segment of `url`). */
export const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

/** The owner invites a fresh email with `role`, and its holder takes the link up with a new password. */
export async function inviteMember(t: TestApp, owner: Member, role: 'owner' | 'admin' | 'analyst', email = freshEmail(role)): Promise<Member> {
  const invited = await sessionCall(t)(owner.cookie, 'POST', '/api/dashboard/invites', { email, role });
  expect(invited.status).toBe(201);
  const { url } = await body(invited);
  const accepted = await t.request('/api/dashboard/invites/accept', { method: 'POST', headers: { origin: ORIGIN }, json: { token: tokenOf(url), password: PASSWORD } });
  expect(accepted.status).toBe(200);
  const answer = await body(accepted);
  return { cookie: accepted.headers.get('set-cookie')!.split(';')[0]!, userId: answer.user_id, orgId: answer.org_id, email };
}
