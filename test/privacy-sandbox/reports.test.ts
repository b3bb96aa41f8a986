import { describe, expect, test } from 'bun:test';
import { MAX_REPORT_BYTES } from '../../src/privacy-sandbox/report-body';
import { body, testApp, TEST_BASE_URL } from '../support/app';
import { backends } from '../support/db';
import { insertLink, orgWithKey } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { ARA, countRows, registerSource } from './support';

/** An event-level report as the API's explainer shows it. */
const eventReport = (sourceEventId: string) => ({
  attribution_destination: 'https://example.com',
  source_event_id: sourceEventId,
  trigger_data: '3',
  report_id: '1d2c7c31-5ab5-4f3c-9c1d-2b4e0f4f7a11',
  source_type: 'navigation',
  randomized_trigger_rate: 0.0024263,
  scheduled_report_time: '1700000000',
});

const aggregateReport = {
  shared_info: '{"api":"attribution-reporting","attribution_destination":"https://example.com","report_id":"a1","reporting_origin":"https://track.test.local","scheduled_report_time":"1700000000","source_registration_time":"1699920000","version":"0.1"}',
  aggregation_service_payloads: [{ payload: 'ZW5jcnlwdGVk', key_id: 'k1' }],
  aggregation_coordinator_origin: 'https://publickeyservice.msmt.aws.privacysandboxservices.com',
};

for (const backend of backends()) {
  describe(`POST /.well-known/attribution-reporting reports on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const org = await orgWithKey(db);
    const post = (path: string, json: unknown, base = ARA) => t.request(`${base}/${path}`, { method: 'POST', json });
    const postRaw = (path: string, raw: string | Uint8Array, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      t.request(`${ARA}/${path}`, { method: 'POST', headers, body: raw });
    const registeredSource = async () => {
      const { slug } = await insertLink(db, org.orgId);
      return JSON.parse((await registerSource(t, `?link=${slug}`)).headers.get('attribution-reporting-register-source')!).source_event_id as string;
    };
    const latestReport = async () =>
      (await db.query<Record<string, any>>(
        'SELECT kind, debug_path, org_id, source_event_id::text AS source_event_id, body, received_at FROM ara_reports ORDER BY id DESC LIMIT 1',
      ))[0]!;
    const expectStored = async (res: Response) => {
      expect(res.status).toBe(200);
      expectSecurityHeaders(res);
      expect(await body(res)).toEqual({ ok: true });
    };
    const expectRefused = async (res: Response, status: number, before: number) => {
      expect(res.status).toBe(status);
      expectSecurityHeaders(res);
      expect(await countRows(db, 'ara_reports')).toBe(before);
      return body(res);
    };

    describe('happy', () => {
      test("an event-level report naming a registered source is stored as received, under the source's organization", async () => {
        const id = await registeredSource();
        const sent = Date.now();
        await expectStored(await post('report-event-attribution', eventReport(id)));
        const stored = await latestReport();
        expect(stored).toMatchObject({ kind: 'event', debug_path: null, org_id: org.orgId, source_event_id: id, body: eventReport(id) });
        expect(Math.abs(new Date(stored.received_at).getTime() - sent)).toBeLessThan(60_000);
      });

      test('an aggregatable report (no source_event_id, by the API) is stored without an organization', async () => {
        await expectStored(await post('report-aggregate-attribution', aggregateReport));
        expect(await latestReport()).toMatchObject({ kind: 'aggregate', debug_path: null, org_id: null, source_event_id: null, body: aggregateReport });
      });

      test("debug reports keep their path; a verbose list is tied through its item's body", async () => {
        const id = await registeredSource();
        await expectStored(await post('debug/report-event-attribution', { ...eventReport(id), source_debug_key: '7' }));
        expect(await latestReport()).toMatchObject({ kind: 'debug', debug_path: 'report-event-attribution', org_id: org.orgId, source_event_id: id });
        const verbose = [{ type: 'source-destination-limit', body: { attribution_destination: 'https://example.com', limit: '100', source_event_id: id, source_site: 'https://pub.example' } }];
        await expectStored(await post('debug/verbose', verbose));
        expect(await latestReport()).toMatchObject({ kind: 'debug', debug_path: 'verbose', org_id: org.orgId, source_event_id: id, body: verbose });
      });

      test('a body of exactly 64 KiB is accepted, on any host', async () => {
        const skeleton = JSON.stringify({ pad: '' });
        const exact = JSON.stringify({ pad: 'x'.repeat(MAX_REPORT_BYTES - skeleton.length) });
        expect(exact.length).toBe(MAX_REPORT_BYTES);
        await expectStored(await postRaw('report-event-attribution', exact));
        await expectStored(await post('report-event-attribution', eventReport('1'), `${TEST_BASE_URL}/.well-known/attribution-reporting`));
      });
    });

    describe('error', () => {
      test('a body that is not a JSON object is a 400 and stores nothing', async () => {
        const before = await countRows(db, 'ara_reports');
        for (const raw of ['[]', '[{"a":1}]', '"report"', '42', 'null', 'true', '{"a":', '', 'not json']) {
          const problem = await expectRefused(await postRaw('report-event-attribution', raw), 400, before);
          expect(problem.error.fieldErrors).toEqual({});
          expect(problem.error.formErrors).toHaveLength(1);
        }
        for (const raw of ['[]', '[1]', '[{"a":1}, "x"]', '"x"']) await expectRefused(await postRaw('debug/verbose', raw), 400, before);
        await expectRefused(await postRaw('report-aggregate-attribution', '[{"a":1}]'), 400, before);
      });

      test('over 64 KiB is a 413, declared or streamed, and stores nothing', async () => {
        const before = await countRows(db, 'ara_reports');
        const over = new TextEncoder().encode(JSON.stringify({ pad: 'x'.repeat(MAX_REPORT_BYTES) }));
        expect(await expectRefused(await postRaw('report-event-attribution', over, { 'content-type': 'application/json', 'content-length': String(over.length) }), 413, before)).toEqual({ error: 'payload too large' });
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < over.length; at += 4096) controller.enqueue(over.slice(at, at + 4096));
            controller.close();
          },
        });
        const streamed = await t.request(`${ARA}/debug/verbose`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' }, body: stream, duplex: 'half' } as RequestInit);
        await expectRefused(streamed, 413, before);
      });

      test('a body nested past 32 levels is a 400', async () => {
        const before = await countRows(db, 'ara_reports');
        const deep = `{"a":${'['.repeat(40)}${']'.repeat(40)}}`;
        await expectRefused(await postRaw('report-event-attribution', deep), 400, before);
        const hostile = `{"a":${'['.repeat(30_000)}${']'.repeat(30_000)}}`;
        await expectRefused(await postRaw('report-event-attribution', hostile), 400, before);
      });

      test('a debug path that is empty or not lowercase words is a 404; other methods are 405', async () => {
        const before = await countRows(db, 'ara_reports');
        for (const path of ['debug/', 'debug/Verbose', 'debug/a..b', `debug/${'a'.repeat(65)}`, 'debug/a//b']) {
          await expectRefused(await post(path, {}), 404, before);
        }
        for (const path of ['report-event-attribution', 'report-aggregate-attribution', 'debug/verbose']) {
          const res = await t.request(`${ARA}/${path}`);
          expect(res.status).toBe(405);
          expectSecurityHeaders(res);
        }
      });

      test('text the database cannot hold (U+0000) is a 400', async () => {
        const before = await countRows(db, 'ara_reports');
        await expectRefused(await postRaw('report-event-attribution', '{"a":"\\u0000"}'), 400, before);
      });
    });

    describe('security', () => {
      test('a report naming an unknown source is stored with no organization', async () => {
        await expectStored(await post('report-event-attribution', eventReport('18446744073709551615')));
        expect(await latestReport()).toMatchObject({ org_id: null, source_event_id: '18446744073709551615' });
        await expectStored(await post('report-event-attribution', eventReport('18446744073709551616')));
        expect(await latestReport()).toMatchObject({ org_id: null, source_event_id: null });
      });

      test('the organization comes only from the registered source, never from the body', async () => {
        const other = await orgWithKey(db, 'Other');
        await expectStored(await post('report-event-attribution', { ...eventReport('5'), org_id: other.orgId }));
        expect((await latestReport()).org_id).toBeNull();
        const id = await registeredSource();
        await expectStored(await post('report-event-attribution', { ...eventReport(id), org_id: other.orgId }));
        expect((await latestReport()).org_id).toBe(org.orgId);
      });

      test('a source_event_id that is not a uint64 string ties to nothing', async () => {
        for (const id of ['-1', '1e3', ' 1', '0x10', 1.5, true, { id: 1 }]) {
          await expectStored(await post('report-event-attribution', { ...eventReport('0'), source_event_id: id }));
          expect(await latestReport()).toMatchObject({ org_id: null, source_event_id: null });
        }
      });
    });
  });
}
