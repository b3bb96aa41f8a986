import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { parseClickFilter } from '../../src/clicks/clicks.model';
import type { ClickRow } from '../../src/clicks/clicks.repo';
import { toClick } from '../../src/clicks/clicks.service';
import { HttpError } from '../../src/http/errors';

function fieldErrorsOf(run: () => unknown): Record<string, string[]> | null {
  try {
    run();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return ((error as HttpError).body.error as { fieldErrors: Record<string, string[]> }).fieldErrors;
  }
}

describe('click export query parsing', () => {
  test('defaults', () => {
    expect(parseClickFilter({})).toEqual({ limit: 100, since: null, gclid: null });
  });

  test('property: every limit from 1 to 1000 is accepted as itself, everything else is a limit error', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1000 }), (n) => expect(parseClickFilter({ limit: String(n) }).limit).toBe(n)));
    const digits = fc.string({ unit: fc.constantFrom('0', '1', '5', '9'), maxLength: 6 });
    fc.assert(
      fc.property(fc.oneof(fc.integer().map(String), digits, fc.string({ maxLength: 8 })), (text) => {
        // Plain decimal digits (zero padding allowed, at most four) whose value is 1 to 1000.
        const acceptable = /^[0-9]{1,4}$/.test(text) && Number(text) >= 1 && Number(text) <= 1000;
        const errors = fieldErrorsOf(() => parseClickFilter({ limit: text }));
        expect(errors).toEqual(acceptable ? null : { limit: ['must be an integer from 1 to 1000'] });
      }),
      { numRuns: 500 },
    );
  });

  test('property: any instant written as ISO 8601 with an offset within ±15:59 is kept as the same instant', () => {
    const offsetMinutes = fc.integer({ min: -15 * 60 - 59, max: 15 * 60 + 59 });
    fc.assert(
      fc.property(fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }), offsetMinutes, (date, offset) => {
        const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 23);
        const sign = offset < 0 ? '-' : '+';
        const abs = Math.abs(offset);
        const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        const { since } = parseClickFilter({ since: `${local}${zone}` });
        expect(Date.parse(since!)).toBe(date.getTime());
        expect(Date.parse(parseClickFilter({ since: date.toISOString() }).since!)).toBe(date.getTime());
      }),
    );
  });

  test('property: arbitrary text for limit and since never escapes as anything but a 400 on those fields', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 30 }), { nil: undefined }), fc.option(fc.string({ maxLength: 40 }), { nil: undefined }), (limit, since) => {
        const errors = fieldErrorsOf(() => parseClickFilter({ limit, since }));
        if (errors) for (const key of Object.keys(errors)) expect(['limit', 'since']).toContain(key);
      }),
      { numRuns: 500 },
    );
  });

  test('calendar and clock limits', () => {
    const ok = ['2024-02-29T00:00:00Z', '2000-02-29', '2026-12-31T23:59:59.999999-15:59', '2026-01-01t00:00:00z', '0001-01-01T00:00:00Z', '2026-01-01T00:00Z'];
    const bad = ['2023-02-29T00:00:00Z', '1900-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-01T23:60:00Z', '2026-01-01T23:00:60Z',
      '2026-01-01T00:00:00+16:00', '2026-01-01T00:00:00.1234567890Z', '0000-01-01T00:00:00Z', '2026-1-01', '0001-01-01T00:00:00-23:59', '0001-01-01T00:00:00+00:01'];
    for (const since of ok) expect(fieldErrorsOf(() => parseClickFilter({ since }))).toBeNull();
    for (const since of bad) expect([since, fieldErrorsOf(() => parseClickFilter({ since }))]).toEqual([since, { since: [expect.any(String)] }]);
    expect(parseClickFilter({ since: '2000-02-29' }).since).toBe('2000-02-29T00:00:00.000000Z');
    expect(parseClickFilter({ since: '2026-01-01T10:00:00.1234567 05:30' }).since).toBe('2026-01-01T04:30:00.123456Z');
  });
});

describe('read model mapping', () => {
  test('snake_case row to the Click fields, timestamps as ISO strings', () => {
    const row: ClickRow = {
      id: 'c1', created_at: new Date('2026-09-02T10:00:00.5Z'), gclid: null, gbraid: null, wbraid: 'w', campaign_ext_id: '1', ad_group_ext_id: null,
      creative_id: null, keyword: null, match_type: 'b', network: 'ytv', device: 't', next_hop_url: 'https://x.example', transparent_param_present: false,
      force_transparent: true, is_bot: false, drop_reason: 'bot', latency_ms: 12, route: null,
      risk_score: 70, risk_reasons: ['rapid_repeat', 'no_dwell', 'not_a_signal', 'datacenter_ip'],
    };
    expect(toClick(row)).toEqual({
      id: 'c1', createdAt: '2026-09-02T10:00:00.500Z', gclid: null, gbraid: null, wbraid: 'w', campaignExtId: '1', adGroupExtId: null, creativeId: null,
      keyword: null, matchType: 'b', network: 'ytv', device: 't', nextHopUrl: 'https://x.example', transparentParamPresent: false, forceTransparent: true,
      isBot: false, dropReason: 'bot', latencyMs: 12, route: null,
      riskScore: 70, riskReasons: ['datacenter_ip', 'rapid_repeat', 'no_dwell'],
    });
  });

  test('a route keeps its five fields, and only those', () => {
    const route = { rule_index: 2, rule_name: 'ab', action: 'variants', variant_index: 1, page: null } as const;
    const row: ClickRow = {
      id: 'c2', created_at: new Date('2026-09-02T10:00:00Z'), gclid: null, gbraid: null, wbraid: null, campaign_ext_id: null, ad_group_ext_id: null,
      creative_id: null, keyword: null, match_type: null, network: null, device: null, next_hop_url: 'https://a.example', transparent_param_present: false,
      force_transparent: false, is_bot: false, drop_reason: null, latency_ms: null, route: { ...route, extra: 'x' } as typeof route,
      risk_score: 0, risk_reasons: [],
    };
    expect(toClick(row).route).toEqual(route);
  });
});
