import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { campaignKeyPiece, eventKeyPiece, hash64Hex, randomSourceEventId } from '../../src/privacy-sandbox/key-pieces';
import { destinationSite } from '../../src/privacy-sandbox/site';
import { isNavigation, sourceRegistration, SOURCE_EXPIRY_SECONDS } from '../../src/privacy-sandbox/source.service';
import { OTHER_TRIGGER_DATA, TRIGGER_DATA, triggerDataOf } from '../../src/privacy-sandbox/trigger-data';
import {
  AGGREGATABLE_BUDGET,
  contributionOf,
  COUNT_CONTRIBUTION,
  parseTriggerQuery,
  triggerRegistration,
  VALUE_SCALE,
} from '../../src/privacy-sandbox/trigger.service';
import { HttpError } from '../../src/http/errors';
import { validateSourceHeader, validateTriggerHeader } from './ara-validator';

const uint64Text = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
const ulidLike = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);
const host = fc.domain();
const eligible = fc.constantFrom(null, 'navigation-source', 'event-source', 'event-source, trigger', 'trigger', 'navigation-source;x=1, trigger');

describe('the header validator (the rules the emitter is held to)', () => {
  test('accepts a source header the API documents and refuses each broken field', () => {
    const good = { source_event_id: '412444888111012', destination: 'https://advertiser.example', expiry: '604800', priority: '100', filter_data: { product: ['1234'] }, aggregation_keys: { campaignCounts: '0x159' } };
    expect(validateSourceHeader(JSON.stringify(good))).toEqual([]);
    const broken: [Record<string, unknown>, string][] = [
      [{ source_event_id: 412444888111012 }, 'source_event_id'],
      [{ source_event_id: '18446744073709551616' }, 'source_event_id'],
      [{ destination: 'http://advertiser.example' }, 'destination'],
      [{ destination: 'https://shop.advertiser.example' }, 'destination'],
      [{ destination: 'https://advertiser.example/landing' }, 'destination'],
      [{ expiry: '60' }, 'expiry'],
      [{ expiry: '-1' }, 'expiry'],
      [{ priority: '9223372036854775808' }, 'priority'],
      [{ filter_data: { source_type: ['navigation'] } }, 'filter_data.source_type'],
      [{ filter_data: { _reserved: ['x'] } }, 'filter_data._reserved'],
      [{ filter_data: { product: '1234' } }, 'filter_data.product'],
      [{ filter_data: { product: ['x'.repeat(26)] } }, 'filter_data.product'],
      [{ aggregation_keys: { campaign: '0x' + 'f'.repeat(33) } }, 'aggregation_keys.campaign'],
      [{ aggregation_keys: { campaign: '159' } }, 'aggregation_keys.campaign'],
      [{ aggregation_keys: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, '0x1'])) }, 'aggregation_keys'],
      [{ surprise: true }, 'surprise'],
    ];
    for (const [change, field] of broken) {
      const problems = validateSourceHeader(JSON.stringify({ ...good, ...change }));
      expect(problems.some((p) => p.startsWith(field))).toBe(true);
    }
  });

  test('accepts a trigger header the API documents and refuses each broken field', () => {
    const good = {
      event_trigger_data: [{ trigger_data: '2', priority: '100', deduplication_key: '1234' }],
      aggregatable_trigger_data: [{ key_piece: '0x400', source_keys: ['campaignCounts'] }],
      aggregatable_values: { campaignCounts: 32768 },
    };
    expect(validateTriggerHeader(JSON.stringify(good))).toEqual([]);
    const broken: [Record<string, unknown>, string][] = [
      [{ event_trigger_data: [{ trigger_data: 2 }] }, 'event_trigger_data.0.trigger_data'],
      [{ event_trigger_data: [{ trigger_data: '2', deduplication_key: '-1' }] }, 'event_trigger_data.0.deduplication_key'],
      [{ aggregatable_trigger_data: [{ source_keys: ['a'] }] }, 'aggregatable_trigger_data.0.key_piece'],
      [{ aggregatable_trigger_data: [{ key_piece: '0xg', source_keys: ['a'] }] }, 'aggregatable_trigger_data.0.key_piece'],
      [{ aggregatable_values: { campaignCounts: 0 } }, 'aggregatable_values.campaignCounts'],
      [{ aggregatable_values: { campaignCounts: 1.5 } }, 'aggregatable_values.campaignCounts'],
      [{ aggregatable_values: { campaignCounts: '10' } }, 'aggregatable_values.campaignCounts'],
      [{ aggregatable_values: { a: 40000, b: 40000 } }, 'aggregatable_values'],
    ];
    for (const [change, field] of broken) {
      const problems = validateTriggerHeader(JSON.stringify({ ...good, ...change }));
      expect(problems.some((p) => p.startsWith(field))).toBe(true);
    }
  });
});

describe('register-source header', () => {
  test('every header the emitter can write is valid under the API (property)', () => {
    fc.assert(
      fc.property(uint64Text, host, fc.option(ulidLike, { nil: null }), fc.option(ulidLike, { nil: null }), eligible, (id, domain, campaignId, linkId, header) => {
        const destination = destinationSite(`https://${domain}/landing?x=1`)!;
        const registration = sourceRegistration({ sourceEventId: id, destination, campaignId, linkId, eligible: header });
        expect(validateSourceHeader(JSON.stringify(registration))).toEqual([]);
        expect(registration.source_event_id).toBe(id);
        expect(registration.expiry).toBe(String(SOURCE_EXPIRY_SECONDS));
        expect(registration.priority).toBe(isNavigation(header) ? '100' : '0');
        if (campaignId) expect(registration.aggregation_keys).toEqual({ campaign: campaignKeyPiece(campaignId) });
        else expect(registration.aggregation_keys).toEqual({});
      }),
      { numRuns: 300 },
    );
  });

  test('the campaign key piece is the high 64 bits of SHA-256(campaign id), stable, as 0x and 32 hex digits', () => {
    const piece = campaignKeyPiece('01J9ZC3Q4ZK8M5T6V7W8X9Y0AB');
    expect(piece).toMatch(/^0x[0-9a-f]{32}$/);
    const sha = new Bun.CryptoHasher('sha256').update('01J9ZC3Q4ZK8M5T6V7W8X9Y0AB').digest('hex');
    expect(piece).toBe(`0x${sha.slice(0, 16)}${'0'.repeat(16)}`);
    expect(campaignKeyPiece('01J9ZC3Q4ZK8M5T6V7W8X9Y0AB')).toBe(piece);
    expect(campaignKeyPiece('01J9ZC3Q4ZK8M5T6V7W8X9Y0AC')).not.toBe(piece);
  });

  test('filter data names the campaign and link by the same 16 hex digits, never by their ids', () => {
    const registration = sourceRegistration({ sourceEventId: '1', destination: 'https://example.com', campaignId: 'C1', linkId: 'L1', eligible: null });
    expect(registration.filter_data).toEqual({ campaign: [hash64Hex('C1')], link: [hash64Hex('L1')] });
    expect(registration.aggregation_keys.campaign!.slice(2, 18)).toBe(hash64Hex('C1'));
  });

  test('source_event_ids come from the CSPRNG over the whole 64-bit range', () => {
    const ids = Array.from({ length: 2000 }, randomSourceEventId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(BigInt(id) <= 2n ** 64n - 1n && /^(0|[1-9][0-9]*)$/.test(id)).toBe(true);
    // With 2000 uniform draws, some land in the top half of the range (all missing it: p = 2^-2000).
    expect(ids.some((id) => BigInt(id) >= 2n ** 63n)).toBe(true);
  });

  test('navigation-source among the Eligible dictionary keys makes a click', () => {
    expect(isNavigation('navigation-source')).toBe(true);
    expect(isNavigation('trigger, navigation-source;x')).toBe(true);
    expect(isNavigation('event-source, trigger')).toBe(false);
    expect(isNavigation('navigation-sourcex')).toBe(false);
    expect(isNavigation(null)).toBe(false);
  });
});

describe('destination site', () => {
  test('scheme plus registrable domain by the Public Suffix List', () => {
    expect(destinationSite('https://shop.example.com/landing?a=1')).toBe('https://example.com');
    expect(destinationSite('https://www.shop.example.co.uk:8443/x')).toBe('https://example.co.uk');
    expect(destinationSite('https://alice.github.io/page')).toBe('https://alice.github.io');
    expect(destinationSite('https://SHOP.Example.COM')).toBe('https://example.com');
    expect(destinationSite('https://apps.apple.com/app/id123')).toBe('https://apple.com');
  });

  test('addresses and local development hosts are their own site', () => {
    expect(destinationSite('https://203.0.113.9/x')).toBe('https://203.0.113.9');
    expect(destinationSite('https://[2001:db8::1]/x')).toBe('https://[2001:db8::1]');
    expect(destinationSite('http://localhost:3000/x')).toBe('http://localhost');
    expect(destinationSite('http://127.0.0.1:8080/')).toBe('http://127.0.0.1');
  });

  test('what the browser would refuse is no destination: plain http elsewhere, other schemes, no URL', () => {
    expect(destinationSite('http://shop.example.com/')).toBeNull();
    expect(destinationSite('http://192.168.1.1/')).toBeNull();
    expect(destinationSite('ftp://example.com/')).toBeNull();
    expect(destinationSite('myapp://open')).toBeNull();
    expect(destinationSite('not a url')).toBeNull();
  });

  test('every https URL gives a site the validator accepts (property)', () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['https'], withQueryParameters: true, withFragments: true }), (url) => {
        const site = destinationSite(url);
        expect(site).not.toBeNull();
        expect(validateSourceHeader(JSON.stringify({ destination: site }))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('register-trigger header', () => {
  const eventName = fc.oneof(fc.constantFrom(...Object.keys(TRIGGER_DATA), 'Purchase', 'other_event'), fc.string({ minLength: 1, maxLength: 64 }));
  const value = fc.option(fc.oneof(fc.double({ min: 0, max: 1e12, noNaN: true }), fc.integer({ min: 0, max: 5000 })), { nil: undefined });

  test('every header the emitter can write is valid under the API and within budget (property)', () => {
    fc.assert(
      fc.property(eventName, value, (event, amount) => {
        const input = parseTriggerQuery({ event, value: amount === undefined ? undefined : String(amount) });
        const registration = triggerRegistration(input);
        expect(validateTriggerHeader(JSON.stringify(registration))).toEqual([]);
        const trigger = Number(registration.event_trigger_data[0]!.trigger_data);
        expect(trigger).toBeGreaterThanOrEqual(0);
        expect(trigger).toBeLessThanOrEqual(7);
        expect(registration.aggregatable_trigger_data[0]!.source_keys).toEqual(Object.keys(registration.aggregatable_values));
        const contribution = registration.aggregatable_values.campaign!;
        expect(contribution).toBeLessThanOrEqual(AGGREGATABLE_BUDGET);
      }),
      { numRuns: 500 },
    );
  });

  test('the trigger data map: documented names to 1..7, any other name to 0, case-insensitively', () => {
    expect(TRIGGER_DATA).toEqual({ conversion: 1, lead: 2, purchase: 3, add_to_cart: 4, sign_up: 5, begin_checkout: 6, subscribe: 7 });
    expect(triggerDataOf('refund')).toBe(OTHER_TRIGGER_DATA);
    expect(triggerDataOf('constructor')).toBe(OTHER_TRIGGER_DATA);
    expect(triggerRegistration(parseTriggerQuery({ event: 'PURCHASE' })).event_trigger_data[0]!.trigger_data).toBe('3');
    // No event is the postback's default event, `conversion`.
    expect(triggerRegistration(parseTriggerQuery({})).event_trigger_data[0]!.trigger_data).toBe('1');
  });

  test('a value is scaled by 32 and rounded, at least 1, at most half the budget; no value counts 16384', () => {
    expect(contributionOf(null)).toEqual({ measure: 'count', amount: COUNT_CONTRIBUTION });
    expect(contributionOf(49.99)).toEqual({ measure: 'value', amount: Math.round(49.99 * VALUE_SCALE) });
    expect(contributionOf(0)).toEqual({ measure: 'value', amount: 1 });
    expect(contributionOf(1024)).toEqual({ measure: 'value', amount: 32768 });
    expect(contributionOf(1e9)).toEqual({ measure: 'value', amount: 32768 });
  });

  test('key pieces keep the measure and the event apart in the low half', () => {
    const count = eventKeyPiece('count', 'purchase');
    const valued = eventKeyPiece('value', 'purchase');
    expect(count).toMatch(/^0x0{16}[0-9a-f]{16}$/);
    expect(count).not.toBe(valued);
    expect(triggerRegistration(parseTriggerQuery({ event: 'purchase', value: '10' })).aggregatable_trigger_data[0]!.key_piece).toBe(valued);
    expect(triggerRegistration(parseTriggerQuery({ event: 'purchase' })).aggregatable_trigger_data[0]!.key_piece).toBe(count);
  });

  test('the deduplication key is stable for one event and value and differs otherwise', () => {
    const key = (event: string, value?: string) => triggerRegistration(parseTriggerQuery({ event, value })).event_trigger_data[0]!.deduplication_key;
    expect(key('purchase', '10')).toBe(key('purchase', '10.0'));
    expect(key('purchase', '10')).not.toBe(key('purchase', '11'));
    expect(key('purchase', '10')).not.toBe(key('lead', '10'));
    expect(key('purchase')).not.toBe(key('purchase', '0'));
  });

  test('a value that is not a non-negative number is refused', () => {
    for (const [raw, message] of [
      ['abc', 'must be a number'],
      ['1,5', 'must be a number'],
      ['0x10', 'must be a number'],
      ['Infinity', 'must be a number'],
      ['1e400', 'must be a number'],
      ['NaN', 'must be a number'],
      [' 1', 'must be a number'],
      ['-1', 'must not be negative'],
    ] as const) {
      let thrown: unknown;
      try {
        parseTriggerQuery({ value: raw });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(HttpError);
      expect((thrown as HttpError).body).toEqual({ error: { formErrors: [], fieldErrors: { value: [message] } } });
    }
  });
});

describe('the worked examples of docs/privacy-sandbox.md', () => {
  const doc = readFileSync(join(import.meta.dir, '../../docs/privacy-sandbox.md'), 'utf8');
  const documented = (name: string) => [...doc.matchAll(new RegExp(`^${name}: (.+)$`, 'gm'))].map((match) => match[1]!);

  test('the source example is what the emitter writes for its inputs, and valid', () => {
    const [example] = documented('Attribution-Reporting-Register-Source');
    expect(validateSourceHeader(example!)).toEqual([]);
    const written = sourceRegistration({
      sourceEventId: JSON.parse(example!).source_event_id,
      destination: destinationSite('https://shop.example.com/sale')!,
      campaignId: '01J9ZC3Q4ZK8M5T6V7W8X9Y0AB',
      linkId: '01J9ZC4D7NQX2B5W8R3T6Y9K1M',
      eligible: 'navigation-source',
    });
    expect(JSON.stringify(written)).toBe(example!);
  });

  test('each trigger example is what the emitter writes for its request line, and valid', () => {
    const requests = [...doc.matchAll(/^GET \/\.well-known\/attribution-reporting\/register-trigger\?(\S+) HTTP/gm)].map((match) => new URLSearchParams(match[1]!));
    const examples = documented('Attribution-Reporting-Register-Trigger');
    expect(examples.length).toBe(requests.length);
    expect(examples.length).toBeGreaterThan(0);
    requests.forEach((query, i) => {
      expect(validateTriggerHeader(examples[i]!)).toEqual([]);
      const written = triggerRegistration(parseTriggerQuery({ event: query.get('event') ?? undefined, value: query.get('value') ?? undefined }));
      expect(JSON.stringify(written)).toBe(examples[i]!);
    });
  });

  test('the bucket example is the OR of the two documented key pieces', () => {
    const piece = (key: string) => BigInt(key);
    const bucket = piece(campaignKeyPiece('01J9ZC3Q4ZK8M5T6V7W8X9Y0AB')) | piece(eventKeyPiece('value', 'purchase'));
    expect(doc).toContain(`\`0x${bucket.toString(16).padStart(32, '0')}\``);
  });
});
