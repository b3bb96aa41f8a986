import '../../support/slow-suite';
import { describe, expect, spyOn, test } from 'bun:test';
import { ulid } from 'ulid';
import { MAX_BEACON_BYTES } from '../../../src/protect/beacon/beacon.model';
import { MIN_DWELL_MS, RISK_SIGNALS, type RiskSignal } from '../../../src/tracking/risk/risk-signals';
import { body, testApp } from '../../support/app';
import { backends } from '../../support/db';
import { orgWithKey } from '../../support/fixtures';
import { expectSecurityHeaders } from '../../support/http';
import { CLEAN_BEACON, clickRisk, riskClick, sendBeacon, storedBeacon } from '../support';

/** The score the signal table gives these reasons: the sum of their weights, at most 100. */
const tableScore = (reasons: readonly string[]) =>
  Math.min(100, reasons.reduce((sum, name) => sum + RISK_SIGNALS.find((signal) => signal.name === name)!.weight, 0));

/** Each beacon signal, with a beacon (against a Swiss IP) that shows it and one that does not. */
const SIGNAL_CASES: { signal: RiskSignal; present: Record<string, unknown>; absent: Record<string, unknown> }[] = [
  { signal: 'webdriver', present: { webdriver: true }, absent: { webdriver: false } },
  { signal: 'no_dwell', present: { dwell_ms: MIN_DWELL_MS - 1 }, absent: { dwell_ms: MIN_DWELL_MS } },
  { signal: 'no_scroll', present: { scroll: 0 }, absent: { scroll: 1 } },
  { signal: 'screen_invalid', present: { screen: '0x0' }, absent: { screen: '1920x1080' } },
  { signal: 'timezone_mismatch', present: { timezone: 'America/New_York' }, absent: { timezone: 'Europe/Zurich' } },
  { signal: 'language_mismatch', present: { languages: 'ja-JP,ja' }, absent: { languages: 'it-CH,en' } },
];

for (const backend of backends()) {
  describe(`POST /api/protect/beacon on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const { orgId } = await orgWithKey(db);

    describe('happy', () => {
      test('a clean beacon answers 200 {ok: true} with CORS, is stored with the click and scores 0', async () => {
        const clickId = await riskClick(db, { orgId, ip: '198.51.100.1' });
        const res = await sendBeacon(t, { click_id: clickId, fingerprint: 'fp-clean', ...CLEAN_BEACON });
        expect(res.status).toBe(200);
        expect(await body(res)).toEqual({ ok: true });
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expectSecurityHeaders(res);
        expect(await clickRisk(db, clickId)).toEqual({ risk_score: 0, risk_reasons: [] });
        expect(await storedBeacon(db, clickId)).toMatchObject({
          org_id: orgId,
          ip: '198.51.100.1',
          fingerprint: 'fp-clean',
          screen: '390x844',
          timezone: 'Europe/Zurich',
          languages: 'de-CH,de,en',
          webdriver: false,
          touch: true,
          dwell_ms: 12_000,
          scroll: 60,
        });
      });

      for (const { signal, present, absent } of SIGNAL_CASES) {
        test(`${signal}: a click that has it scores its weight, one that does not scores 0`, async () => {
          const flagged = await riskClick(db, { orgId });
          const clean = await riskClick(db, { orgId });
          expect((await sendBeacon(t, { ...CLEAN_BEACON, ...present, click_id: flagged })).status).toBe(200);
          expect((await sendBeacon(t, { ...CLEAN_BEACON, ...absent, click_id: clean })).status).toBe(200);
          expect(await clickRisk(db, flagged)).toEqual({ risk_score: tableScore([signal]), risk_reasons: [signal] });
          expect(await clickRisk(db, clean)).toEqual({ risk_score: 0, risk_reasons: [] });
        });
      }

      test('a beacon that reports nothing but the click id raises nothing', async () => {
        const clickId = await riskClick(db, { orgId });
        expect((await sendBeacon(t, { click_id: clickId })).status).toBe(200);
        expect(await clickRisk(db, clickId)).toEqual({ risk_score: 0, risk_reasons: [] });
      });

      test('every beacon signal at once, over a click signal: reasons in table order, score capped at 100', async () => {
        const clickId = await riskClick(db, { orgId, reasons: ['datacenter_ip'] });
        const present = Object.assign({}, ...SIGNAL_CASES.map((c) => c.present));
        expect((await sendBeacon(t, { click_id: clickId, ...present })).status).toBe(200);
        const reasons = ['datacenter_ip', ...SIGNAL_CASES.map((c) => c.signal)];
        expect(await clickRisk(db, clickId)).toEqual({ risk_score: 100, risk_reasons: reasons });
        expect(tableScore(reasons)).toBe(100);
      });

      test("the click family's reasons stay; a later beacon takes back its own family's", async () => {
        const clickId = await riskClick(db, { orgId, reasons: ['datacenter_ip'] });
        await sendBeacon(t, { click_id: clickId, scroll: 0, timezone: 'Asia/Tokyo' });
        expect(await clickRisk(db, clickId)).toEqual({
          risk_score: tableScore(['datacenter_ip', 'no_scroll', 'timezone_mismatch']),
          risk_reasons: ['datacenter_ip', 'no_scroll', 'timezone_mismatch'],
        });
        await sendBeacon(t, { click_id: clickId, scroll: 35, timezone: 'Europe/Zurich' });
        expect(await clickRisk(db, clickId)).toEqual({ risk_score: tableScore(['datacenter_ip']), risk_reasons: ['datacenter_ip'] });
      });

      test('repeated beacons keep the largest dwell and scroll and the latest of the rest; webdriver stays true', async () => {
        const clickId = await riskClick(db, { orgId });
        await sendBeacon(t, { click_id: clickId, dwell_ms: 400, scroll: 0, webdriver: true, timezone: 'Asia/Tokyo', touch: true });
        expect((await clickRisk(db, clickId)).risk_reasons).toEqual(['webdriver', 'no_dwell', 'no_scroll', 'timezone_mismatch']);
        await sendBeacon(t, { click_id: clickId, dwell_ms: 9_000, scroll: 70, webdriver: false, timezone: 'Europe/Zurich' });
        await sendBeacon(t, { click_id: clickId, dwell_ms: 200, scroll: 0 });
        expect(await storedBeacon(db, clickId)).toMatchObject({ dwell_ms: 9_000, scroll: 70, webdriver: true, timezone: 'Europe/Zurich', touch: true });
        expect(await clickRisk(db, clickId)).toEqual({ risk_score: tableScore(['webdriver']), risk_reasons: ['webdriver'] });
      });

      test('JSON declared as application/json, or with no Content-Type, is read the same', async () => {
        for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'application/x-www-form-urlencoded' }]) {
          const clickId = await riskClick(db, { orgId });
          expect((await sendBeacon(t, { click_id: clickId, scroll: 0 }, { headers })).status).toBe(200);
          expect((await clickRisk(db, clickId)).risk_reasons).toEqual(['no_scroll']);
        }
        const clickId = await riskClick(db, { orgId });
        const res = await t.request('/api/protect/beacon', { method: 'POST', body: new Blob([JSON.stringify({ click_id: clickId, scroll: 0 })]) });
        expect(res.status).toBe(200);
        expect((await clickRisk(db, clickId)).risk_reasons).toEqual(['no_scroll']);
      });

      test('unknown fields are ignored, as in the SDK bodies', async () => {
        const clickId = await riskClick(db, { orgId });
        expect((await sendBeacon(t, { click_id: clickId, scroll: 0, viewport: '390x700', extra: { a: 1 } })).status).toBe(200);
        expect((await clickRisk(db, clickId)).risk_reasons).toEqual(['no_scroll']);
      });

      test("a verified crawler's click stores its beacon and keeps score 0", async () => {
        const clickId = await riskClick(db, { orgId, isBot: true });
        expect((await sendBeacon(t, { click_id: clickId, webdriver: true, scroll: 0, screen: '0x0' })).status).toBe(200);
        expect(await clickRisk(db, clickId)).toEqual({ risk_score: 0, risk_reasons: [] });
        expect(await storedBeacon(db, clickId)).toMatchObject({ org_id: orgId, webdriver: true, scroll: 0 });
      });

      test('OPTIONS is the CORS preflight', async () => {
        const res = await t.request('/api/protect/beacon', {
          method: 'OPTIONS',
          headers: { origin: 'https://landing.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        expect(res.status).toBe(204);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(res.headers.get('access-control-allow-methods')).toContain('POST');
        expect(res.headers.get('access-control-allow-headers')).toContain('Content-Type');
        expectSecurityHeaders(res);
      });
    });

    describe('errors', () => {
      test('an unknown click id answers 404 {"error":"click not found"} with CORS at once, storing nothing', async () => {
        // Not a ULID, and a ULID minted a minute ago: neither can still be in the pipeline.
        for (const clickId of ['no-such-click', ulid(Date.now() - 60_000)]) {
          // At once: the wait for a click still in the pipeline never pauses for either.
          const pauses = spyOn(Bun, 'sleep');
          try {
            const res = await sendBeacon(t, { ...CLEAN_BEACON, click_id: clickId });
            expect(pauses).not.toHaveBeenCalled();
            expect(res.status).toBe(404);
            expect(await body(res)).toEqual({ error: 'click not found' });
            expect(res.headers.get('access-control-allow-origin')).toBe('*');
            expectSecurityHeaders(res);
          } finally {
            pauses.mockRestore();
          }
          expect(await storedBeacon(db, clickId)).toBeUndefined();
        }
      });

      test('each invalid field answers 400 naming it, with CORS, and changes nothing', async () => {
        const clickId = await riskClick(db, { orgId });
        const invalid: [string, Record<string, unknown>][] = [
          ['click_id', { click_id: undefined }],
          ['click_id', { click_id: 'abc' }],
          ['click_id', { click_id: 'x'.repeat(65) }],
          ['click_id', { click_id: 42 }],
          ['fingerprint', { fingerprint: 'f'.repeat(129) }],
          ['fingerprint', { fingerprint: '' }],
          ['screen', { screen: '1920*1080' }],
          ['screen', { screen: '123456x1' }],
          ['screen', { screen: 1920 }],
          ['timezone', { timezone: 'z'.repeat(65) }],
          ['languages', { languages: 'l'.repeat(257) }],
          ['webdriver', { webdriver: 'true' }],
          ['touch', { touch: 1 }],
          ['dwell_ms', { dwell_ms: -1 }],
          ['dwell_ms', { dwell_ms: 1.5 }],
          ['dwell_ms', { dwell_ms: '500' }],
          ['scroll', { scroll: 101 }],
          ['scroll', { scroll: -1 }],
          ['scroll', { scroll: 50.5 }],
          ['fingerprint', { fingerprint: null }],
          ['dwell_ms', { dwell_ms: null }],
        ];
        for (const [field, change] of invalid) {
          const res = await sendBeacon(t, { click_id: clickId, scroll: 0, ...change });
          expect(res.status, `${field}: ${JSON.stringify(change)}`).toBe(400);
          const error = (await body(res)).error;
          expect(Object.keys(error.fieldErrors), JSON.stringify(change)).toEqual([field]);
          expect(error.formErrors).toEqual([]);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
        }
        expect(await storedBeacon(db, clickId)).toBeUndefined();
        expect(await clickRisk(db, clickId)).toEqual({ risk_score: 0, risk_reasons: [] });
        const missing = await sendBeacon(t, { scroll: 0 });
        expect((await body(missing)).error.fieldErrors).toEqual({ click_id: ['is required: the svc_click_id of the landing URL, 4 to 64 characters'] });
      });

      test('a body that is not a JSON object answers 400 in the spec shape', async () => {
        for (const raw of ['', 'not json', '{"click_id":', '[]', '"click"', 'null', '\u00ff']) {
          const res = await sendBeacon(t, undefined, { raw });
          expect(res.status, raw).toBe(400);
          const error = (await body(res)).error;
          expect(error.formErrors.length, raw).toBeGreaterThan(0);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
        }
        const latin1 = await t.request('/api/protect/beacon', { method: 'POST', body: new Uint8Array([0x7b, 0xff, 0x7d]) });
        expect(latin1.status).toBe(400);
      });

      test(`a body up to ${MAX_BEACON_BYTES} bytes is read; one byte more is 413, declared or chunked`, async () => {
        const clickId = await riskClick(db, { orgId });
        const padded = (bytes: number) => {
          const base = JSON.stringify({ click_id: clickId, scroll: 0, pad: '' });
          return JSON.stringify({ click_id: clickId, scroll: 0, pad: 'x'.repeat(bytes - base.length) });
        };
        expect(padded(MAX_BEACON_BYTES)).toHaveLength(MAX_BEACON_BYTES);
        expect((await sendBeacon(t, undefined, { raw: padded(MAX_BEACON_BYTES) })).status).toBe(200);
        const other = await riskClick(db, { orgId });
        const tooLarge = padded(MAX_BEACON_BYTES + 1).replace(clickId, other);
        const declared = await sendBeacon(t, undefined, { raw: tooLarge });
        expect(declared.status).toBe(413);
        expect(await body(declared)).toEqual({ error: 'payload too large' });
        expect(declared.headers.get('access-control-allow-origin')).toBe('*');
        expectSecurityHeaders(declared);
        const chunks = [tooLarge.slice(0, 4000), tooLarge.slice(4000)].map((part) => new TextEncoder().encode(part));
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = chunks.shift();
            if (next) controller.enqueue(next);
            else controller.close();
          },
        });
        const chunked = await t.request('/api/protect/beacon', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: stream });
        expect(chunked.status).toBe(413);
        expect(await storedBeacon(db, other)).toBeUndefined();
      });

      test('other methods answer 405', async () => {
        const res = await t.request('/api/protect/beacon');
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toContain('POST');
      });
    });
  });
}
