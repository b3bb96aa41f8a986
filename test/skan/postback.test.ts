import { describe, expect, test } from 'bun:test';
import { newId } from '../../src/shared/ids';
import { body, testApp, type TestApp } from '../support/app';
import { backends } from '../support/db';
import { orgWithKey } from '../support/fixtures';
import { APPLE_EXAMPLES, postback40, testSigner, transactionId } from './support';

type Postback = Record<string, unknown>;

for (const backend of backends()) {
  describe(`POST /api/skan/postback on ${backend.name}`, async () => {
    const db = await backend.create();
    const signer = testSigner();
    const apple = await testApp(db, {}, { mirror: false, workers: false });
    const own = await testApp(db, { SKAN_PUBLIC_KEY: signer.pem }, { mirror: false, workers: false });
    const unsafe = await testApp(db, { SKAN_PUBLIC_KEY: signer.base64, SKAN_VERIFY: 'off' }, { mirror: false, workers: false });
    const post = (t: TestApp, org: string | null, json: unknown) =>
      t.request(org === null ? '/api/skan/postback' : `/api/skan/postback?org=${encodeURIComponent(org)}`, { method: 'POST', json });
    const rows = (orgId: string) => db.query<Record<string, unknown>>('SELECT * FROM skan_postbacks WHERE org_id = $1 ORDER BY _seq', [orgId]);
    const total = async () => (await db.query<{ n: number }>('SELECT count(*)::integer AS n FROM skan_postbacks'))[0]!.n;

    describe('happy', () => {
      test("stores each of Apple's example postbacks, verified and decoded, and answers {ok, id}", async () => {
        const expected: Record<string, Record<string, unknown>> = {
          '2.2': { version: '2.2', ad_network_id: 'com.example', source_identifier: '42', source_app_id: '1234567891', source_domain: null, conversion_value: 20, coarse_conversion_value: null, postback_sequence_index: null, fidelity_type: 1, did_win: null, redownload: true },
          '3.0 winning': { version: '3.0', ad_network_id: 'example123.skadnetwork', source_identifier: '42', source_app_id: '1234567891', conversion_value: 20, did_win: true, redownload: true },
          '3.0 not winning': { version: '3.0', source_identifier: '42', source_app_id: null, conversion_value: null, did_win: false, fidelity_type: 1 },
          '4.0 fine': { version: '4.0', source_identifier: '5239', source_app_id: null, source_domain: 'example.com', conversion_value: 63, coarse_conversion_value: null, postback_sequence_index: 0, did_win: true, redownload: false },
          '4.0 coarse': { version: '4.0', source_identifier: '39', source_domain: 'example.com', conversion_value: null, coarse_conversion_value: 'high', postback_sequence_index: 0 },
        };
        for (const [name, example] of Object.entries(APPLE_EXAMPLES)) {
          const { orgId } = await orgWithKey(db);
          const res = await post(apple, orgId, example);
          expect(res.status, name).toBe(200);
          const answer = await body(res);
          expect(answer, name).toEqual({ ok: true, id: expect.any(String) });
          const stored = await rows(orgId);
          expect(stored.length).toBe(1);
          expect(stored[0], name).toMatchObject({
            id: answer.id,
            org_id: orgId,
            transaction_id: example['transaction-id'],
            verified: true,
            app_id: null,
            campaign_id: null,
            raw: example,
            ...expected[name],
          });
        }
      });

      test('every field list: postbacks signed over each version\'s fields verify with SKAN_PUBLIC_KEY', async () => {
        const { orgId } = await orgWithKey(db);
        const { 'source-app-id': _app, ...anonymous40 } = postback40();
        const cases: Postback[] = [
          postback40(),
          postback40({ 'source-app-id': 0 }),
          { ...anonymous40, 'transaction-id': transactionId() },
          { ...anonymous40, 'transaction-id': transactionId(), 'source-domain': 'news.example.org', 'postback-sequence-index': 2, 'coarse-conversion-value': 'medium' },
          // Leading zeros and strings are signed exactly as sent.
          postback40({ 'source-identifier': '0042', 'app-id': '987654321' }),
          { version: '3.0', 'ad-network-id': 'net.example', 'campaign-id': 7, 'app-id': 987654321, 'transaction-id': transactionId(), redownload: false, 'fidelity-type': 0, 'did-win': true },
          { version: '3.0', 'ad-network-id': 'net.example', 'campaign-id': '07', 'app-id': 987654321, 'transaction-id': transactionId(), redownload: true, 'source-app-id': 5, 'fidelity-type': 1, 'did-win': false },
          { version: '2.2', 'ad-network-id': 'net.example', 'campaign-id': 99, 'app-id': 987654321, 'transaction-id': transactionId(), redownload: false, 'fidelity-type': 1, 'conversion-value': 0 },
        ];
        for (const unsigned of cases) {
          const postback = signer.sign(unsigned as Record<string, string | number | boolean>);
          const res = await post(own, orgId, postback);
          expect(res.status, JSON.stringify(postback)).toBe(200);
        }
        const stored = await rows(orgId);
        expect(stored.map((r) => r.verified)).toEqual(cases.map(() => true));
        expect(stored.map((r) => r.raw)).toEqual(cases.map((c) => ({ ...c, 'attribution-signature': expect.any(String) })));
        expect(stored[4]).toMatchObject({ source_identifier: '0042' });
        expect(stored[6]).toMatchObject({ source_identifier: '07', source_app_id: '5' });
      });

      test('the body is read as JSON whatever its Content-Type', async () => {
        const { orgId } = await orgWithKey(db);
        for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
          const signed = signer.sign(postback40());
          const res = await own.request(`/api/skan/postback?org=${orgId}`, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify(signed) });
          expect(res.status, type).toBe(200);
        }
        expect((await rows(orgId)).length).toBe(2);
      });

      test('unknown scalar keys are accepted and kept in raw only', async () => {
        const { orgId } = await orgWithKey(db);
        const postback = { ...signer.sign(postback40()), 'country-code': 'US', 'future-flag': true, note: null, weight: 1.5 };
        expect((await post(own, orgId, postback)).status).toBe(200);
        expect((await rows(orgId))[0]!.raw).toEqual(postback);
      });
    });

    describe('idempotency', () => {
      test('a replayed postback answers 200 with the same id and stores nothing new', async () => {
        const { orgId } = await orgWithKey(db);
        const example = APPLE_EXAMPLES['4.0 fine']!;
        const first = await body(await post(apple, orgId, example));
        const again = await post(apple, orgId, example);
        expect(again.status).toBe(200);
        expect(await body(again)).toEqual(first);
        const racing = await Promise.all([1, 2, 3].map(() => post(apple, orgId, example).then(body)));
        expect(racing).toEqual([first, first, first]);
        expect((await rows(orgId)).length).toBe(1);
      });

      test('a repeat with other unsigned values keeps the stored postback as it was', async () => {
        const { orgId } = await orgWithKey(db);
        const postback = signer.sign(postback40());
        const first = await body(await post(own, orgId, postback));
        const before = await rows(orgId);
        const changed = await post(own, orgId, { ...postback, 'conversion-value': 1 });
        expect(await body(changed)).toEqual(first);
        expect(await rows(orgId)).toEqual(before);
      });

      test('security: the same transaction id in another organization is a postback of its own', async () => {
        const a = await orgWithKey(db);
        const b = await orgWithKey(db);
        const example = APPLE_EXAMPLES['3.0 winning']!;
        const ids = [await body(await post(apple, a.orgId, example)), await body(await post(apple, b.orgId, example))].map((r) => r.id);
        expect(ids[0]).not.toBe(ids[1]);
        expect((await rows(a.orgId)).map((r) => r.id)).toEqual([ids[0]]);
        expect((await rows(b.orgId)).map((r) => r.id)).toEqual([ids[1]]);
      });
    });

    describe('security: signatures', () => {
      test('forged, tampered, swapped, foreign-key and missing signatures answer 400 invalid signature and store nothing', async () => {
        const { orgId } = await orgWithKey(db);
        const before = await total();
        const example = APPLE_EXAMPLES['4.0 fine']!;
        const signature = Buffer.from(example['attribution-signature'] as string, 'base64');
        signature[10]! ^= 0x80;
        const { 'attribution-signature': _none, ...unsigned } = example;
        const forged: Postback[] = [
          { ...example, 'attribution-signature': signature.toString('base64') },
          { ...example, 'conversion-value': 63, 'did-win': false },
          { ...example, 'source-identifier': '5238' },
          { ...example, 'app-id': 525463030 },
          { ...example, 'transaction-id': '6aafb7a5-0170-41b5-bbe4-fe71dedf1e99' },
          { ...example, 'ad-network-id': example['transaction-id'], 'transaction-id': example['ad-network-id'] },
          { ...example, 'source-domain': undefined, 'source-app-id': 1 },
          unsigned,
          signer.sign(postback40()),
        ];
        for (const json of forged) {
          const res = await post(apple, orgId, json);
          expect(res.status, JSON.stringify(json)).toBe(400);
          expect(await body(res)).toEqual({ error: 'invalid signature' });
        }
        // SKAN_PUBLIC_KEY replaces Apple's key: Apple's own postbacks no longer verify there.
        const res = await post(own, orgId, example);
        expect(await body(res)).toEqual({ error: 'invalid signature' });
        expect(await total()).toBe(before);
      });

      test('a replay with a broken signature is refused even though the transaction is stored', async () => {
        const { orgId } = await orgWithKey(db);
        const postback = signer.sign(postback40());
        const { id } = await body(await post(own, orgId, postback));
        const res = await post(own, orgId, { ...postback, 'conversion-value': 63, 'did-win': false });
        expect(res.status).toBe(400);
        expect((await rows(orgId)).map((r) => [r.id, r.did_win])).toEqual([[id, true]]);
      });

      test('SKAN_VERIFY=off stores what fails verification, marked verified: false, and what passes as verified', async () => {
        const { orgId } = await orgWithKey(db);
        const { 'attribution-signature': _none, ...unsigned } = signer.sign(postback40());
        const forged: Postback = { ...signer.sign(postback40()), 'did-win': false };
        const genuine = signer.sign(postback40());
        for (const json of [unsigned, forged, genuine]) expect((await post(unsafe, orgId, json)).status).toBe(200);
        expect((await rows(orgId)).map((r) => [r.transaction_id, r.verified])).toEqual([
          [unsigned['transaction-id'], false],
          [forged['transaction-id'], false],
          [genuine['transaction-id'], true],
        ]);
        // The other checks stand.
        expect((await post(unsafe, null, genuine)).status).toBe(400);
        expect((await post(unsafe, orgId, { ...genuine, version: '2.1' })).status).toBe(400);
      });
    });

    describe('errors', () => {
      test('org missing, malformed or unknown: 400 naming org, nothing stored', async () => {
        const before = await total();
        const example = APPLE_EXAMPLES['4.0 coarse']!;
        for (const org of [null, '', 'not an id', 'x'.repeat(65), '../etc', newId()]) {
          const res = await post(apple, org, example);
          expect(res.status, String(org)).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors), String(org)).toEqual(['org']);
        }
        expect((await body(await post(apple, newId(), example))).error.fieldErrors.org).toEqual(['unknown organization']);
        expect((await body(await post(apple, null, example))).error.fieldErrors.org).toEqual(['required: the organization id']);
        expect(await total()).toBe(before);
      });

      test('security: a malformed org and an unknown one get the same answer, byte for byte', async () => {
        const raw = async (t: TestApp, org: string, json: unknown) => {
          const res = await post(t, org, json);
          return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
        };
        const genuine = APPLE_EXAMPLES['4.0 coarse']!;
        const badBody = { ...signer.sign(postback40()), 'conversion-value': 99 };
        for (const [t, json] of [[apple, genuine], [own, badBody], [unsafe, postback40()]] as const) {
          const unknown = await raw(t, newId(), json);
          for (const malformed of ['not an id', 'x'.repeat(65), '../etc', '%00']) expect(await raw(t, malformed, json)).toEqual(unknown);
          expect(unknown.status).toBe(400);
        }
        expect(await raw(apple, 'not an id', genuine)).toEqual({
          status: 400,
          type: 'application/json',
          text: '{"error":{"formErrors":[],"fieldErrors":{"org":["unknown organization"]}}}',
        });
      });

      test('security: a bad postback answers the same for an existing organization as for an unknown or malformed one', async () => {
        const { orgId } = await orgWithKey(db);
        const raw = async (t: TestApp, org: string, json: unknown) => {
          const res = await post(t, org, json);
          return { status: res.status, text: await res.text() };
        };
        const { 'attribution-signature': _none, ...unsigned } = APPLE_EXAMPLES['4.0 fine']!;
        const bad: [TestApp, unknown][] = [
          [apple, unsigned],
          [apple, { ...APPLE_EXAMPLES['4.0 fine']!, 'did-win': false }],
          [own, testSigner().sign(postback40())],
          [own, { ...signer.sign(postback40()), 'did-win': 'yes' }],
          [own, { ...signer.sign(postback40()), version: '9.9' }],
        ];
        for (const [t, json] of bad) {
          const answer = await raw(t, orgId, json);
          expect(answer.status).toBe(400);
          expect(await raw(t, newId(), json), JSON.stringify(json)).toEqual(answer);
          expect(await raw(t, 'not an id', json), JSON.stringify(json)).toEqual(answer);
        }
        expect(await rows(orgId)).toEqual([]);
      });

      test('a version outside 2.2 to 4.0: 400 naming version, nothing stored', async () => {
        const { orgId } = await orgWithKey(db);
        for (const version of ['2.1', '2.0', '1.0', '3.1', '4.1', '5.0', '4', '', 4, null, undefined]) {
          const res = await post(own, orgId, { ...signer.sign(postback40()), version });
          expect(res.status, String(version)).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors), String(version)).toContain('version');
        }
        expect(await rows(orgId)).toEqual([]);
      });

      test('bad fields: 400 naming each, nothing stored', async () => {
        const { orgId } = await orgWithKey(db);
        const cases: [Postback, string][] = [
          [{ 'ad-network-id': undefined }, 'ad-network-id'],
          [{ 'transaction-id': undefined }, 'transaction-id'],
          [{ 'transaction-id': '' }, 'transaction-id'],
          [{ 'transaction-id': 'a b' }, 'transaction-id'],
          [{ 'transaction-id': 'a\u2063b' }, 'transaction-id'],
          [{ 'ad-network-id': 'x'.repeat(256) }, 'ad-network-id'],
          [{ 'app-id': -1 }, 'app-id'],
          [{ 'app-id': '12a' }, 'app-id'],
          [{ 'app-id': 1.5 }, 'app-id'],
          [{ 'source-identifier': '1' }, 'source-identifier'],
          [{ 'source-identifier': '12345' }, 'source-identifier'],
          [{ 'campaign-id': 10000 }, 'campaign-id'],
          [{ 'source-app-id': 'abc' }, 'source-app-id'],
          [{ 'source-domain': '123456' }, 'source-domain'],
          [{ 'source-domain': 'bad domain' }, 'source-domain'],
          [{ 'conversion-value': 64 }, 'conversion-value'],
          [{ 'conversion-value': '12' }, 'conversion-value'],
          [{ 'coarse-conversion-value': 'huge' }, 'coarse-conversion-value'],
          [{ 'fidelity-type': 2 }, 'fidelity-type'],
          [{ 'did-win': 'yes' }, 'did-win'],
          [{ redownload: 1 }, 'redownload'],
          [{ 'postback-sequence-index': 3 }, 'postback-sequence-index'],
          [{ 'attribution-signature': 'not base64!' }, 'attribution-signature'],
          [{ nested: { a: 1 } }, 'nested'],
          [{ long: 'x'.repeat(1025) }, 'long'],
        ];
        for (const [change, field] of cases) {
          const res = await post(own, orgId, { ...signer.sign(postback40()), ...change });
          expect(res.status, field).toBe(400);
          expect(Object.keys((await body(res)).error.fieldErrors), JSON.stringify(change)).toEqual([field]);
        }
        const many = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`k${i}`, i]));
        const tooMany = await post(own, orgId, { ...signer.sign(postback40()), ...many });
        expect((await body(tooMany)).error.formErrors.length).toBeGreaterThan(0);
        for (const raw of ['[]', '"4.0"', 'not json']) {
          const res = await own.request(`/api/skan/postback?org=${orgId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
          expect(res.status, raw).toBe(400);
        }
        expect(await rows(orgId)).toEqual([]);
      });

      test('a missing org and a bad body are named together; a bad body with a given org names the body only', async () => {
        const json = { ...postback40(), version: '9.9', 'conversion-value': 99 };
        const missing = await post(own, null, json);
        expect(missing.status).toBe(400);
        expect(Object.keys((await body(missing)).error.fieldErrors).sort()).toEqual(['conversion-value', 'org', 'version']);
        for (const org of ['no such org!', newId()]) {
          expect(Object.keys((await body(await post(own, org, json))).error.fieldErrors).sort(), org).toEqual(['conversion-value', 'version']);
        }
      });

      test('no credential is needed and none is looked at; other methods answer 405', async () => {
        const { orgId } = await orgWithKey(db);
        const res = await own.request(`/api/skan/postback?org=${orgId}`, { method: 'POST', headers: { authorization: 'Bearer nonsense' }, json: signer.sign(postback40()) });
        expect(res.status).toBe(200);
        expect((await own.request(`/api/skan/postback?org=${orgId}`)).status).toBe(405);
      });
    });
  });
}
