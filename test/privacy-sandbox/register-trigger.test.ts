import { describe, expect, test } from 'bun:test';
import { eventKeyPiece } from '../../src/privacy-sandbox/key-pieces';
import { body, testApp, TEST_BASE_URL } from '../support/app';
import { backends } from '../support/db';
import { expectSecurityHeaders } from '../support/http';
import { validateTriggerHeader } from './ara-validator';
import { ARA, countRows, expectEmptyRegistration } from './support';

const HEADER = 'attribution-reporting-register-trigger';

for (const backend of backends()) {
  describe(`GET /.well-known/attribution-reporting/register-trigger on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { mirror: false, workers: false });
    const trigger = (query: string, base = ARA) => t.request(`${base}/register-trigger${query}`);
    const headerOf = async (response: Response) => {
      await expectEmptyRegistration(response);
      const value = response.headers.get(HEADER);
      expect(value).not.toBeNull();
      expect(validateTriggerHeader(value!)).toEqual([]);
      return JSON.parse(value!);
    };
    const expectValueRefused = async (response: Response, message: string) => {
      expect(response.status).toBe(400);
      expectSecurityHeaders(response);
      expect(response.headers.get(HEADER)).toBeNull();
      expect(await body(response)).toEqual({ error: { formErrors: [], fieldErrors: { value: [message] } } });
    };

    describe('happy', () => {
      test('a purchase with a value: trigger data 3, the value scaled by 32 on the campaign key', async () => {
        const header = await headerOf(await trigger('?event=purchase&value=49.99'));
        expect(header).toEqual({
          event_trigger_data: [{ trigger_data: '3', deduplication_key: expect.stringMatching(/^(0|[1-9][0-9]*)$/) }],
          aggregatable_trigger_data: [{ key_piece: eventKeyPiece('value', 'purchase'), source_keys: ['campaign'] }],
          aggregatable_values: { campaign: 1600 },
        });
      });

      test('no parameters: a counted `conversion`', async () => {
        const header = await headerOf(await trigger(''));
        expect(header.event_trigger_data[0].trigger_data).toBe('1');
        expect(header.aggregatable_trigger_data[0].key_piece).toBe(eventKeyPiece('count', 'conversion'));
        expect(header.aggregatable_values).toEqual({ campaign: 16384 });
        expect(await headerOf(await trigger('?event=&value='))).toEqual(header);
      });

      test('values in every decimal form, capped at half the budget', async () => {
        expect((await headerOf(await trigger('?event=lead&value=1e2'))).aggregatable_values.campaign).toBe(3200);
        expect((await headerOf(await trigger('?event=lead&value=.5'))).aggregatable_values.campaign).toBe(16);
        expect((await headerOf(await trigger('?event=lead&value=0'))).aggregatable_values.campaign).toBe(1);
        expect((await headerOf(await trigger('?event=lead&value=99999999'))).aggregatable_values.campaign).toBe(32768);
      });

      test('an unknown event reports trigger data 0 and keeps its own key piece', async () => {
        const header = await headerOf(await trigger('?event=Newsletter_Open'));
        expect(header.event_trigger_data[0].trigger_data).toBe('0');
        expect(header.aggregatable_trigger_data[0].key_piece).toBe(eventKeyPiece('count', 'newsletter_open'));
      });
    });

    describe('error', () => {
      test('a value that is not a number is a 400 with no header', async () => {
        for (const raw of ['abc', '12abc', 'NaN', 'Infinity', '1%2C5', '%20']) await expectValueRefused(await trigger(`?event=purchase&value=${raw}`), 'must be a number');
        await expectValueRefused(await trigger('?value=-5'), 'must not be negative');
      });

      test('an event name over 64 characters is a 400', async () => {
        const res = await trigger(`?event=${'e'.repeat(65)}`);
        expect(res.status).toBe(400);
        expect(Object.keys((await body(res)).error.fieldErrors)).toEqual(['event']);
      });

      test('other methods answer 405', async () => {
        const res = await t.request(`${ARA}/register-trigger`, { method: 'POST' });
        expect(res.status).toBe(405);
        expectSecurityHeaders(res);
      });
    });

    describe('security', () => {
      test('a trigger stores nothing and is the same on every host', async () => {
        const before = [await countRows(db, 'ara_sources'), await countRows(db, 'ara_reports')];
        const onTracking = await headerOf(await trigger('?event=purchase&value=10'));
        const onApi = await headerOf(await trigger('?event=purchase&value=10', `${TEST_BASE_URL}/.well-known/attribution-reporting`));
        expect(onApi).toEqual(onTracking);
        expect([await countRows(db, 'ara_sources'), await countRows(db, 'ara_reports')]).toEqual(before);
      });

      test('the event name never appears in the header, however it is written', async () => {
        const value = (await trigger('?event=%22%7D%2C%22x%22%3A%7B&value=1')).headers.get(HEADER)!;
        expect(validateTriggerHeader(value)).toEqual([]);
        expect(value).not.toContain('"x"');
      });

      test('unknown parameters are ignored and change nothing', async () => {
        expect(await headerOf(await trigger('?event=purchase&value=10&aggregatable_values=999&org=x'))).toEqual(await headerOf(await trigger('?event=purchase&value=10')));
      });
    });
  });
}
