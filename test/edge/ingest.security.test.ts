import { describe, expect, test } from 'bun:test';
import { MAX_BODY_BYTES } from '../../src/http/http.plugin';
import { body, testApp } from '../support/app';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { ingest, sign } from './support';

for (const backend of backends()) {
  describe(`POST /api/ingest/clicks security on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const unsigned = await testApp(db, { INGEST_SECRET: '' }, { mirror: false, workers: false });
    const org = await orgWithKey(db);
    const { slug } = await insertLink(db, org.orgId);
    const clickCount = async () => {
      await t.services.clickPipeline.flush();
      await unsigned.services.clickPipeline.flush();
      return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE org_id = $1', [org.orgId]))[0]!.n;
    };
    const expectUnauthorized = async (res: Response) => {
      expect(res.status).toBe(401);
      expectSecurityHeaders(res);
      expect(await body(res)).toEqual({ error: 'unauthorized' });
    };
    const raw = JSON.stringify({ events: [{ slug, click_id: 'edge-sec-1' }] });
    const good = sign(t.config.ingestSecret!, raw);

    test('no signature, a wrong one, uppercase hex, a prefixed one, another body\'s or another secret\'s: 401, nothing stored', async () => {
      const other = JSON.stringify({ events: [{ slug, click_id: 'edge-sec-2' }] });
      for (const signature of [null, '', 'x'.repeat(64), good.toUpperCase(), `sha256=${good}`, good.slice(0, 63), sign(t.config.ingestSecret!, other), sign('another-secret-0123456789', raw)]) {
        await expectUnauthorized(await ingest(t, undefined, { raw, signature }));
      }
      // The same rows under a different spelling of the JSON are different bytes.
      await expectUnauthorized(await ingest(t, undefined, { raw: ` ${raw}`, signature: good }));
      expect(await clickCount()).toBe(0);
      expect((await ingest(t, undefined, { raw, signature: good })).status).toBe(200);
      expect(await clickCount()).toBe(1);
    });

    test('the signature is checked before the body is read as JSON or validated', async () => {
      await expectUnauthorized(await ingest(t, undefined, { raw: 'not json', signature: null }));
      await expectUnauthorized(await ingest(t, undefined, { raw: JSON.stringify({ events: [] }), signature: 'f'.repeat(64) }));
    });

    test('without INGEST_SECRET every call answers 401, even one signed with an empty key', async () => {
      const before = await clickCount();
      for (const signature of [null, sign('', raw), good]) await expectUnauthorized(await ingest(unsigned, undefined, { raw, signature }));
      expect(await clickCount()).toBe(before);
    });

    test("a body over the app's 5 MiB limit answers 413, declared or streamed, and stores nothing", async () => {
      const before = await clickCount();
      const huge = JSON.stringify({ events: [{ slug, click_id: 'edge-sec-big', pad: 'x'.repeat(MAX_BODY_BYTES) }] });
      const bytes = new TextEncoder().encode(huge);
      const signed = { 'content-type': 'application/json', 'x-svc-signature': sign(t.config.ingestSecret!, bytes) };
      const declared = await t.request('/api/ingest/clicks', { method: 'POST', headers: { ...signed, 'content-length': String(bytes.length) }, body: bytes });
      expect(declared.status).toBe(413);
      expectSecurityHeaders(declared);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 1 << 16) controller.enqueue(bytes.slice(at, at + (1 << 16)));
          controller.close();
        },
      });
      const streamed = await t.request('/api/ingest/clicks', {
        method: 'POST',
        headers: { ...signed, 'transfer-encoding': 'chunked' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(await clickCount()).toBe(before);
    });

    test('an API key or a session is no substitute for the signature', async () => {
      const res = await t.request('/api/ingest/clicks', { method: 'POST', headers: { ...org.auth, 'content-type': 'application/json' }, body: raw });
      await expectUnauthorized(res);
    });
  });
}
