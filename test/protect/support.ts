import { newId } from '../../src/shared/ids';
import { body, type TestApp } from '../support/app';

/** A registered user's session cookie and organization, over the app's own routes. */
export async function sessionAccount(t: TestApp): Promise<{ cookie: string; orgId: string }> {
  const registered = await t.request('/register', {
    method: 'POST',
    json: { email: `p${newId().toLowerCase()}@example.com`, password: 'correct horse', organization: 'Acme' },
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
  return { cookie: registered.headers.get('set-cookie')!.split(';')[0]!, orgId: (await body(registered)).org_id };
}
