import { describe, expect, test } from 'bun:test';
import { createIngestion } from '../../../src/tracking/enrich/ingest';
import { STEPS, type IngestionStep } from '../../../src/tracking/enrich/steps';
import { createIpHasher } from '../../../src/shared/crypto/ip-hash';
import { APPLEBOT, BINGBOT, DUCKDUCKBOT, GOOGLEBOT, GOOGLEBOT_SMARTPHONE, IPHONE, rawClick, YANDEXBOT } from './click-fixture';

const ipHasher = createIpHasher('enrichment-test-secret-0123456789abcdef');
const ingestion = createIngestion({ ipHasher });

describe('click enrichment: a human click', () => {
  test('gets country, OS, device type and IP identities, and no drop reason', () => {
    const click = rawClick({ ip: '81.2.69.160', user_agent: IPHONE });
    const enriched = ingestion.enrich(click);
    expect(enriched).toMatchObject({
      country: 'GB',
      os_family: 'iOS',
      os_version: '17.4',
      device_type: 'mobile',
      is_bot: false,
      drop_reason: null,
      ip_day_hash: ipHasher.ipDay('81.2.69.160', new Date(click.created_at)),
      household_hash: ipHasher.household('81.2.69.160'),
    });
    expect(enriched.ip_day_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('leaves the request facts alone and does not modify its argument', () => {
    const click = rawClick();
    const before = structuredClone(click);
    const enriched = ingestion.enrich(click);
    expect(click).toEqual(before);
    for (const key of ['id', 'org_id', 'created_at', 'gclid', 'next_hop_url', 'latency_ms', 'user_agent'] as const) {
      expect(enriched[key]).toEqual(before[key]);
    }
  });

  test('device types: tablet, desktop by default, smart TV and console', () => {
    const ipad = 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1';
    const windows = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
    const tv = 'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36';
    const ps5 = 'Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15';
    const android = 'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
    const cases = [
      [ipad, 'iOS', '16.6', 'tablet'],
      [windows, 'Windows', '10', 'desktop'],
      [tv, 'Tizen', '6.0', 'smarttv'],
      [ps5, 'PlayStation', '5', 'console'],
      [android, 'Android', '14', 'mobile'],
    ] as const;
    for (const [ua, osFamily, osVersion, deviceType] of cases) {
      const enriched = ingestion.enrich(rawClick({ user_agent: ua }));
      expect([enriched.os_family, enriched.os_version, enriched.device_type]).toEqual([osFamily, osVersion, deviceType]);
      expect(enriched.drop_reason).toBeNull();
    }
  });

  test('an IPv4-mapped IPv6 address is stored, located and hashed as the IPv4 address', () => {
    const enriched = ingestion.enrich(rawClick({ ip: '::ffff:8.8.8.8' }));
    expect(enriched.ip).toBe('8.8.8.8');
    expect(enriched.country).toBe('US');
    expect(enriched.household_hash).toBe(ipHasher.household('8.8.8.8'));
  });

  test('IPv6 clicks are located; private addresses have no country but still count', () => {
    expect(ingestion.enrich(rawClick({ ip: '2001:4860:4860::8888' })).country).toBe('US');
    const lan = ingestion.enrich(rawClick({ ip: '10.1.2.3' }));
    expect(lan.country).toBeNull();
    expect(lan.drop_reason).toBeNull();
    expect(lan.household_hash).toBe(ipHasher.household('10.1.2.3'));
  });
});

describe('click enrichment: search-engine crawlers', () => {
  const verified = [
    ['Googlebot over IPv4', GOOGLEBOT, '66.249.66.1'],
    ['Googlebot smartphone over IPv6', GOOGLEBOT_SMARTPHONE, '2001:4860:4801:10::1'],
    ['bingbot', BINGBOT, '157.55.39.10'],
    ['bingbot in 40.77.167.0/24', BINGBOT, '40.77.167.200'],
    ['Applebot', APPLEBOT, '17.166.20.5'],
    ['DuckDuckBot', DUCKDUCKBOT, '20.191.45.212'],
  ] as const;
  for (const [name, ua, ip] of verified) {
    test(`${name} from its published ranges is a verified bot and never attributes`, () => {
      const enriched = ingestion.enrich(rawClick({ user_agent: ua, ip }));
      expect(enriched.is_bot).toBe(true);
      expect(enriched.drop_reason).toBe('verified_bot');
    });
  }

  const spoofed = [
    ['Googlebot from a residential address', GOOGLEBOT, '81.2.69.160'],
    ['Googlebot from just outside 66.249.64.0/19', GOOGLEBOT, '66.249.96.1'],
    ['bingbot from Google\'s ranges', BINGBOT, '66.249.66.1'],
    ['Googlebot from Bing\'s ranges', GOOGLEBOT, '157.55.39.10'],
    ['YandexBot (no published ranges)', YANDEXBOT, '5.255.253.1'],
  ] as const;
  for (const [name, ua, ip] of spoofed) {
    test(`${name} is an unverified bot: dropped as bot, is_bot false`, () => {
      const enriched = ingestion.enrich(rawClick({ user_agent: ua, ip }));
      expect(enriched.is_bot).toBe(false);
      expect(enriched.drop_reason).toBe('bot');
    });
  }

  test('a click that arrives flagged is_bot is re-decided by verification', () => {
    expect(ingestion.enrich(rawClick({ is_bot: true })).is_bot).toBe(false);
  });
});

describe('click enrichment: drops', () => {
  test('generic automation is dropped as bot', () => {
    for (const ua of ['curl/8.4.0', 'python-requests/2.31.0', 'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/124.0.0.0 Safari/537.36']) {
      const enriched = ingestion.enrich(rawClick({ user_agent: ua }));
      expect(enriched.drop_reason).toBe('bot');
      expect(enriched.is_bot).toBe(false);
    }
  });

  test('no usable address or no user agent is invalid; the click keeps what it had', () => {
    for (const ip of [null, '', 'not-an-ip', '999.1.1.1', '1.2.3', '0x7f.0.0.1', '2130706433', '1.2.3.4:80']) {
      const enriched = ingestion.enrich(rawClick({ ip }));
      expect(enriched.drop_reason).toBe('invalid');
      expect(enriched.ip).toBe(ip);
      expect([enriched.country, enriched.ip_day_hash, enriched.household_hash]).toEqual([null, null, null]);
      expect(enriched.os_family).toBe('iOS');
    }
    for (const user_agent of [null, '', '   ']) {
      const enriched = ingestion.enrich(rawClick({ user_agent }));
      expect(enriched.drop_reason).toBe('invalid');
      expect([enriched.os_family, enriched.device_type]).toEqual([null, null]);
      expect(enriched.country).toBe('GB');
    }
  });

  test('the first reason wins: an invalid crawler click stays invalid, a blocked click stays blocked', () => {
    expect(ingestion.enrich(rawClick({ user_agent: GOOGLEBOT, ip: 'garbage' })).drop_reason).toBe('invalid');
    const blocked = ingestion.enrich(rawClick({ drop_reason: 'blocked', user_agent: 'curl/8.4.0' }));
    expect(blocked.drop_reason).toBe('blocked');
    expect(blocked.country).toBe('GB');
  });

  test('an unparsable created_at leaves ip_day_hash empty instead of throwing', () => {
    const enriched = ingestion.enrich(rawClick({ created_at: 'yesterday' }));
    expect(enriched.ip_day_hash).toBeNull();
    expect(enriched.household_hash).toBe(ipHasher.household('81.2.69.160'));
  });
});

describe('the pipeline', () => {
  test('is a list of named steps, in order', () => {
    expect(STEPS.map((step) => step.name)).toEqual(['validate', 'geo', 'user_agent', 'verified_crawler', 'bot', 'ip_identity', 'risk', 'region']);
  });

  test('a failing step is skipped and the click is still returned, enriched by the other steps', () => {
    const failing: IngestionStep = {
      name: 'failing',
      run() {
        throw new Error('boom');
      },
    };
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const guarded = createIngestion({ ipHasher }, { steps: [STEPS[0]!, failing, ...STEPS.slice(1)] });
      const first = guarded.enrich(rawClick());
      const second = guarded.enrich(rawClick());
      expect(first.country).toBe('GB');
      expect(second.device_type).toBe('mobile');
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
    expect(String(errors[0]![0])).toContain('failing');
  });
});
