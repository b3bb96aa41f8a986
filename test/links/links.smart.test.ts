import { describe, expect, test } from 'bun:test';
import { findLinkById, findLinkByKey } from '../../src/tracking/redirect/lookups.repo';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { SCHEMA_EXAMPLE } from '../tracking/smartlinks/rules/schema-example';
import { orgSnapshot, recordPublishes, storedLink } from './support';

const RULES = SCHEMA_EXAMPLE;
const PREVIEW = { title: 'Spring sale', description: 'Everything at half price', image: 'https://cdn.example.com/og.png' };

for (const backend of backends()) {
  describe(`links API, smart-link fields, on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false });
    const publishes = recordPublishes(t.services.linkChanges);
    const create = (auth: Record<string, string>, json: unknown) => t.request('/api/v1/links', { method: 'POST', headers: auth, json });
    const patch = (auth: Record<string, string>, id: string, json: unknown) => t.request(`/api/v1/links/${id}`, { method: 'PATCH', headers: auth, json });
    const smartLink = async (auth: Record<string, string>, json: Record<string, unknown> = {}) => {
      const res = await create(auth, { kind: 'smart', ...json });
      expect(res.status).toBe(201);
      return body(res);
    };

    describe('happy', () => {
      test('rules, pass_params and preview are stored and answered by create, get, list and PATCH', async () => {
        const { auth } = await orgWithKey(db);
        const link = await smartLink(auth, { rules: RULES, pass_params: true, preview: PREVIEW });
        expect(link).toMatchObject({ kind: 'smart', rules: RULES, pass_params: true, preview: PREVIEW });
        expect(await body(await t.request(`/api/v1/links/${link.id}`, { headers: auth }))).toEqual(link);
        expect((await body(await t.request('/api/v1/links', { headers: auth }))).data).toEqual([link]);
        expect(await storedLink(db, link.id)).toMatchObject({ rules: RULES, pass_params: true, preview: PREVIEW });
        const patched = await body(await patch(auth, link.id, { pass_params: false, preview: { title: 'Summer' } }));
        expect(patched).toMatchObject({ rules: RULES, pass_params: false, preview: { title: 'Summer' } });
      });

      test('a bare array is stored as a normalised version 1 rule set', async () => {
        const { auth } = await orgWithKey(db);
        const link = await smartLink(auth, { rules: [{ if: { country: 'de', os: 'Android', language: 'DE' }, then: { deep_link: 'myapp://p/1', fallback: 'https://shop.example.com/p/1' } }] });
        const normalised = { version: 1, rules: [{ if: { country: ['DE'], os: ['android'], language: ['de'] }, then: { deep_link: 'myapp://p/1', fallback: 'https://shop.example.com/p/1' } }] };
        expect(link.rules).toEqual(normalised);
        expect((await storedLink(db, link.id))!.rules).toEqual(normalised);
      });

      test('PATCH replaces the rules as a whole; null clears rules and preview', async () => {
        const { auth } = await orgWithKey(db);
        const link = await smartLink(auth, { rules: RULES, preview: PREVIEW });
        const replaced = await body(await patch(auth, link.id, { rules: [{ if: {}, then: { block: 403 } }] }));
        expect(replaced.rules).toEqual({ version: 1, rules: [{ if: {}, then: { block: 403 } }] });
        const cleared = await body(await patch(auth, link.id, { rules: null, preview: null }));
        expect(cleared).toMatchObject({ rules: null, preview: null, pass_params: false });
        expect(await storedLink(db, link.id)).toMatchObject({ rules: null, preview: null });
      });

      test('the redirect lookups read rules, pass_params, preview, expiry and cap for the /l router', async () => {
        const { auth } = await orgWithKey(db);
        const link = await smartLink(auth, { slug: 'lookup-smart', rules: RULES, pass_params: true, preview: PREVIEW, expires_at: '2031-01-01T00:00:00Z', click_cap: 7 });
        const expected = { kind: 'smart', rules: RULES, pass_params: true, preview: PREVIEW, expires_at: new Date('2031-01-01T00:00:00Z'), click_cap: 7 };
        expect(await findLinkById(db, link.id)).toMatchObject(expected);
        expect(await findLinkByKey(db, '', 'lookup-smart')).toMatchObject(expected);
        const plain = await insertLink(db, (await orgWithKey(db)).orgId);
        expect(await findLinkById(db, plain.linkId)).toMatchObject({ rules: null, pass_params: false, preview: null, expires_at: null, click_cap: null });
      });
    });

    describe('error', () => {
      const badRules: [unknown, string][] = [
        [[{ if: { country: 'XX' }, then: { block: 403 } }], 'rules.rules.0.if.country'],
        [[{ if: { region: '' }, then: { block: 403 } }], 'rules.rules.0.if.region'],
        [[{ if: { city: [5] }, then: { block: 403 } }], 'rules.rules.0.if.city'],
        [[{ if: { os: 'windows' }, then: { block: 403 } }], 'rules.rules.0.if.os'],
        [[{ if: { ip_type: 'cable' }, then: { block: 403 } }], 'rules.rules.0.if.ip_type'],
        [[{ if: { in_app: 1 }, then: { block: 403 } }], 'rules.rules.0.if.in_app'],
        [[{ if: { language: 'en-US' }, then: { block: 403 } }], 'rules.rules.0.if.language'],
        [[{ if: { params: { utm_source: 7 } }, then: { block: 403 } }], 'rules.rules.0.if.params.utm_source'],
        [[{ if: { hours: { from: 0, to: 24 } }, then: { block: 403 } }], 'rules.rules.0.if.hours.to'],
        [[{ if: { hours: { from: 0, to: 6, tz: 'Europe/Nowhere' } }, then: { block: 403 } }], 'rules.rules.0.if.hours.tz'],
        [[{ if: { weekdays: ['mon', 'someday'] }, then: { block: 403 } }], 'rules.rules.0.if.weekdays'],
        [[{ if: { browser: 'safari' }, then: { block: 403 } }], 'rules.rules.0.if.browser'],
        [[{ if: {}, then: { url: 'javascript:alert(1)' } }], 'rules.rules.0.then.url'],
        [[{ if: {}, then: { store: 'itms-apps://x' } }], 'rules.rules.0.then.store'],
        [[{ if: {}, then: { deep_link: 'data:text/html,x' } }], 'rules.rules.0.then.deep_link'],
        [[{ if: {}, then: { deep_link: 'myapp://x', fallback: 'myapp://y' } }], 'rules.rules.0.then.fallback'],
        [[{ if: {}, then: { variants: [{ url: 'https://a.example', weight: -1 }] } }], 'rules.rules.0.then.variants.0.weight'],
        [[{ if: {}, then: { variants: [] } }], 'rules.rules.0.then.variants'],
        [[{ if: {}, then: { block: 200 } }], 'rules.rules.0.then.block'],
        [[{ if: {}, then: { url: 'https://a.example', block: 403 } }], 'rules.rules.0.then'],
        [[{ name: 'x', if: {}, then: { block: 403 } }, { name: 'x', if: {}, then: { block: 404 } }], 'rules.rules.1.name'],
        [{ version: 2, rules: [] }, 'rules.version'],
        [{ version: 1, rules: [], fallback: { url: 'ftp://x.example' } }, 'rules.fallback.url'],
        [Array.from({ length: 101 }, () => ({ if: {}, then: { block: 404 } })), 'rules.rules'],
      ];

      test('create: every condition and action kind, refused with its exact path; nothing stored', async () => {
        const { auth, orgId } = await orgWithKey(db);
        await publishes.reset();
        const before = await orgSnapshot(db, orgId);
        for (const [rules, path] of badRules) {
          const res = await create(auth, { kind: 'smart', rules });
          expect(res.status, path).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual([path]);
        }
        expect(await orgSnapshot(db, orgId)).toEqual(before);
        await publishes.settle();
        expect(publishes.seen).toEqual([]);
      });

      test('PATCH: the same refusals, and the link keeps its rules', async () => {
        const { auth } = await orgWithKey(db);
        const link = await smartLink(auth, { rules: RULES });
        const before = await storedLink(db, link.id);
        await publishes.reset();
        for (const [rules, path] of badRules) {
          const res = await patch(auth, link.id, { rules, status: 'paused' });
          expect(res.status, path).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual([path]);
        }
        expect(await storedLink(db, link.id)).toEqual(before);
        await publishes.settle();
        expect(publishes.seen).toEqual([]);
      });

      test('preview and pass_params: refused with their paths', async () => {
        const { auth } = await orgWithKey(db);
        const link = await smartLink(auth);
        const cases: [unknown, string][] = [
          [{ preview: { image: 'http://cdn.example.com/a.png' } }, 'preview.image'],
          [{ preview: { title: 'x'.repeat(201) } }, 'preview.title'],
          [{ preview: { description: 7 } }, 'preview.description'],
          [{ preview: { titel: 'typo' } }, 'preview.titel'],
          [{ preview: ['x'] }, 'preview'],
          [{ pass_params: 'true' }, 'pass_params'],
          [{ pass_params: null }, 'pass_params'],
        ];
        const before = await storedLink(db, link.id);
        for (const [json, path] of cases) {
          for (const res of [await patch(auth, link.id, json), await create(auth, { kind: 'smart', ...(json as object) })]) {
            expect(res.status, path).toBe(400);
            expect(Object.keys((await body(res)).error.fieldErrors)).toEqual([path]);
          }
        }
        expect(await storedLink(db, link.id)).toEqual(before);
      });

      test('a tracking link takes no rules, preview or passed parameters; clearing them is fine', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const created = await create(auth, { rules: RULES, preview: PREVIEW, pass_params: true });
        expect(created.status).toBe(400);
        expect((await body(created)).error.fieldErrors).toEqual({
          rules: ['only smart links have rules'],
          preview: ['only smart links have a preview'],
          pass_params: ['only smart links pass parameters on'],
        });
        const { linkId } = await insertLink(db, orgId, { slug: 'plain-tracking' });
        const before = await storedLink(db, linkId);
        for (const json of [{ rules: RULES }, { preview: PREVIEW }, { pass_params: true, status: 'paused' }]) {
          const res = await patch(auth, linkId, json);
          expect(res.status).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(Object.keys(json).filter((key) => key !== 'status'));
        }
        expect(await storedLink(db, linkId)).toEqual(before);
        const cleared = await patch(auth, linkId, { rules: null, preview: null, pass_params: false });
        expect(cleared.status).toBe(200);
        expect(await body(cleared)).toMatchObject({ kind: 'tracking', rules: null, preview: null, pass_params: false });
      });
    });

    describe('security', () => {
      test("another organization's smart link: PATCH of rules, preview or pass_params is 404 and changes nothing", async () => {
        const owner = await orgWithKey(db, 'Owner');
        const intruder = await orgWithKey(db, 'Intruder');
        const link = await smartLink(owner.auth, { rules: RULES, preview: PREVIEW });
        const before = await orgSnapshot(db, owner.orgId);
        await publishes.reset();
        for (const json of [{ rules: [{ if: {}, then: { url: 'https://evil.example' } }] }, { rules: null }, { preview: { title: 'Hijacked' } }, { pass_params: true }]) {
          const res = await patch(intruder.auth, link.id, json);
          expect(res.status).toBe(404);
          expect(await body(res)).toEqual({ error: 'link not found' });
        }
        expect(await orgSnapshot(db, owner.orgId)).toEqual(before);
        await publishes.settle();
        expect(publishes.seen).not.toContain(link.id);
        expect((await t.request(`/api/v1/links/${link.id}`, { headers: intruder.auth })).status).toBe(404);
        expect((await body(await t.request('/api/v1/links', { headers: intruder.auth }))).data).toEqual([]);
      });

      test('rules cannot smuggle a dangerous target: every URL a visitor may be sent to is checked', async () => {
        const { auth, orgId } = await orgWithKey(db);
        const before = await orgSnapshot(db, orgId);
        for (const then of [
          { url: 'https://user:pw@evil.example/' },
          { url: 'https://evil.example\\@shop.example' },
          { store: 'javascript:alert(1)' },
          { deep_link: 'JavaScript:alert(1)' },
          { deep_link: 'myapp://x\r\nSet-Cookie: a=b' },
          { variants: [{ url: 'data:text/html,<script>alert(1)</script>', weight: 1 }] },
        ]) {
          const res = await create(auth, { kind: 'smart', rules: [{ if: {}, then }] });
          expect(res.status).toBe(400);
        }
        const fallback = await create(auth, { kind: 'smart', rules: { version: 1, rules: [], fallback: { url: 'vbscript:x' } } });
        expect(fallback.status).toBe(400);
        expect(await orgSnapshot(db, orgId)).toEqual(before);
      });
    });
  });
}
