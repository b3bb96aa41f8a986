import { describe, expect, test } from 'bun:test';
import { backends } from '../support/db';
import { body, testApp } from '../support/app';
import { orgWithKey } from '../support/fixtures';

for (const backend of backends()) {
  describe(`register and keys on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db);
    test('register, create a key, list it', async () => {
      const email = `u${Date.now()}@example.com`;
      const reg = await t.request('/register', { method: 'POST', json: { email, password: 'password123', organization: 'Acme' } });
      expect(reg.status).toBe(201);
      const cookie = reg.headers.get('set-cookie')!.split(';')[0]!;
      const created = await t.request('/api/dashboard/keys', { method: 'POST', headers: { cookie }, json: { name: 'server' } });
      expect(created.status).toBe(201);
      const key = await body(created);
      expect(key.api_key).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
      const list = await body(await t.request("/api/dashboard/keys", { headers: { cookie } }));
      expect(list.data.map((k: { id: string }) => k.id)).toEqual([key.id]);
    });
    test('fixtures give a working key', async () => {
      const { orgId } = await orgWithKey(db);
      expect(orgId).toBeString();
    });
  });
}
