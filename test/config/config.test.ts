import { availableParallelism, totalmem } from 'node:os';
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, DEFAULT_MAX_TRACKING_THREADS, defaultTrackingThreads, loadConfig } from '../../src/config/config';
import { isTrustedPeer } from '../../src/config/trusted-proxies';
import { APPLE_SKAN_PUBLIC_KEY } from '../../src/config/skan-key';
import { DEFAULT_JOURNAL_SYNC_MS } from '../../src/config/defaults';
import { runBun } from '../support/process';
import { tempDir } from '../support/temp-dir';

const SECRET = 'a-session-secret-that-is-long-enough-0123456789';

describe('loadConfig: happy', () => {
  test('no configuration gives the embedded defaults', () => {
    const dir = tempDir('config');
    const config = loadConfig({ DATA_DIR: dir });
    expect(config.port).toBe(3000);
    expect(config.dataDir).toBe(dir);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.baseUrl).toBe('http://localhost:3000');
    expect(config.trackingUrl).toBe('http://localhost:3000');
    expect(config.trackingHost).toBe('localhost:3000');
    expect(config.trustProxy).toBe(0);
    expect(config.rateLimit).toBe(true);
    expect(config.ingestSecret).toBeUndefined();
    expect(config.clickBacklog).toBeUndefined();
    expect(config.domainVerification).toBe('dns');
    expect(config.mirrorMemoryMb).toBe(256);
    expect(config.mirrorThreads).toBe(Math.min(availableParallelism(), 4));
    expect(config.journalSyncMs).toBe(DEFAULT_JOURNAL_SYNC_MS);
    expect(config.geoCityDb).toBeUndefined();
    expect(config.skanPublicKey).toBe(APPLE_SKAN_PUBLIC_KEY);
    expect(config.skanVerify).toBe(true);
    // The embedded store lives in the main thread: no tracking listener threads.
    expect(config.trackingThreads).toBe(0);
    expect(config.version).toBe(JSON.parse(readFileSync(join(import.meta.dir, '..', '..', 'package.json'), 'utf8')).version);
  });

  test('TRACKING_THREADS by default: one per core beyond the first two, at most 3', () => {
    expect([1, 2, 3, 4, 5, 6, 64].map(defaultTrackingThreads)).toEqual([0, 0, 1, 2, 3, 3, 3]);
    expect(DEFAULT_MAX_TRACKING_THREADS).toBe(3);
  });

  test('TRACKING_THREADS: on Postgres the default for this machine; 0 turns them off; the embedded store refuses them', () => {
    const postgresUrl = 'postgres://u@db.internal:5432/svc';
    const expected = Math.min(DEFAULT_MAX_TRACKING_THREADS, Math.max(0, navigator.hardwareConcurrency - 2));
    expect(loadConfig({ DATA_DIR: tempDir('config'), DATABASE_URL: postgresUrl }).trackingThreads).toBe(expected);
    expect(loadConfig({ DATA_DIR: tempDir('config'), DATABASE_URL: postgresUrl, TRACKING_THREADS: '0' }).trackingThreads).toBe(0);
    expect(loadConfig({ DATA_DIR: tempDir('config'), TRACKING_THREADS: '0' }).trackingThreads).toBe(0);
    expect(() => loadConfig({ DATA_DIR: tempDir('config'), TRACKING_THREADS: '1' })).toThrow(/invalid TRACKING_THREADS: 1 needs DATABASE_URL/);
    for (const bad of ['-1', 'two', '1.5', '100']) {
      expect(() => loadConfig({ DATA_DIR: tempDir('config'), DATABASE_URL: postgresUrl, TRACKING_THREADS: bad })).toThrow(/invalid TRACKING_THREADS/);
    }
  });

  test('MIRROR_MEMORY_MB: MiB from 32 to 1048576; MIRROR_THREADS: 1 to 99', () => {
    const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, ...env });
    expect(load({ MIRROR_MEMORY_MB: '32' }).mirrorMemoryMb).toBe(32);
    expect(load({ MIRROR_MEMORY_MB: '1048576' }).mirrorMemoryMb).toBe(1_048_576);
    expect(load({ MIRROR_MEMORY_MB: ' 0128 ' }).mirrorMemoryMb).toBe(128);
    expect(load({ MIRROR_MEMORY_MB: '' }).mirrorMemoryMb).toBe(256);
    expect(() => load({ MIRROR_MEMORY_MB: '31' })).toThrow('invalid MIRROR_MEMORY_MB: 31 is not a number of MiB, 32 to 1048576');
    expect(() => load({ MIRROR_MEMORY_MB: '256MB' })).toThrow(/^invalid MIRROR_MEMORY_MB: "256MB" is not a number of MiB/);
    expect(load({ MIRROR_THREADS: '1' }).mirrorThreads).toBe(1);
    expect(load({ MIRROR_THREADS: '99' }).mirrorThreads).toBe(99);
  });

  test('EMBEDDED_BUFFERS_MB: MiB from 16 to 4096, by default a thousandth of the machine, 16 to 128', () => {
    const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, ...env });
    const machineMb = totalmem() / 1024 / 1024;
    expect(load({}).embeddedBuffersMb).toBe(Math.min(128, Math.max(16, Math.floor(machineMb / 1024))));
    expect(load({ EMBEDDED_BUFFERS_MB: '16' }).embeddedBuffersMb).toBe(16);
    expect(load({ EMBEDDED_BUFFERS_MB: '4096' }).embeddedBuffersMb).toBe(4096);
    expect(() => load({ EMBEDDED_BUFFERS_MB: '8' })).toThrow('invalid EMBEDDED_BUFFERS_MB: 8 is not a number of MiB, 16 to 4096');
    expect(() => load({ EMBEDDED_BUFFERS_MB: '4097' })).toThrow('invalid EMBEDDED_BUFFERS_MB: 4097 is not a number of MiB, 16 to 4096');
    expect(() => load({ EMBEDDED_BUFFERS_MB: '64MB' })).toThrow(/^invalid EMBEDDED_BUFFERS_MB: "64MB" is not a number of MiB/);
  });

  test('BASE_URL and TRACKING_URL default to the chosen PORT; explicit values lose a trailing slash', () => {
    const derived = loadConfig({ DATA_DIR: tempDir('config'), PORT: '8080' });
    expect(derived.baseUrl).toBe('http://localhost:8080');
    expect(derived.trackingUrl).toBe('http://localhost:8080');
    const explicit = loadConfig({ DATA_DIR: tempDir('config'), BASE_URL: 'https://api.example.com/', TRACKING_URL: 'https://go.example.com:8443//' });
    expect(explicit.baseUrl).toBe('https://api.example.com');
    expect(explicit.trackingUrl).toBe('https://go.example.com:8443');
    expect(explicit.trackingHost).toBe('go.example.com:8443');
  });

  test('GOOGLE_ADS_API_URL and GOOGLE_OAUTH_TOKEN_URL: Google’s by default; explicit values lose a trailing slash', () => {
    const defaults = loadConfig({ DATA_DIR: tempDir('config') });
    expect(defaults.googleAdsApiUrl).toBe('https://googleads.googleapis.com/v26');
    expect(defaults.googleOauthTokenUrl).toBe('https://oauth2.googleapis.com/token');
    const local = loadConfig({ DATA_DIR: tempDir('config'), GOOGLE_ADS_API_URL: 'http://127.0.0.1:9000/v26/', GOOGLE_OAUTH_TOKEN_URL: 'http://127.0.0.1:9000/token' });
    expect(local.googleAdsApiUrl).toBe('http://127.0.0.1:9000/v26');
    expect(local.googleOauthTokenUrl).toBe('http://127.0.0.1:9000/token');
  });

  test('RETENTION_DAYS: off by default; per-table variables override it, off keeps a table whole', () => {
    const dir = tempDir('config');
    expect(loadConfig({ DATA_DIR: dir }).retentionDays).toEqual({});
    expect(loadConfig({ DATA_DIR: dir }).partitionsAheadDays).toBe(7);
    expect(loadConfig({ DATA_DIR: dir, RETENTION_DAYS: '90' }).retentionDays).toEqual({
      clicks: 90, impressions: 90, events: 90, click_beacons: 90, ara_reports: 90,
    });
    const mixed = loadConfig({ DATA_DIR: dir, RETENTION_DAYS: '90', RETENTION_CLICKS_DAYS: '30', RETENTION_EVENTS_DAYS: 'OFF', PARTITIONS_AHEAD_DAYS: '14' });
    expect(mixed.retentionDays).toEqual({ clicks: 30, impressions: 90, click_beacons: 90, ara_reports: 90 });
    expect(mixed.partitionsAheadDays).toBe(14);
    expect(loadConfig({ DATA_DIR: dir, RETENTION_IMPRESSIONS_DAYS: '7' }).retentionDays).toEqual({ impressions: 7 });
  });

  test('RETENTION_DAYS and PARTITIONS_AHEAD_DAYS: anything but off or a whole number of days is refused, naming the variable', () => {
    const dir = tempDir('config');
    for (const [variable, value] of [['RETENTION_DAYS', '0'], ['RETENTION_DAYS', '-3'], ['RETENTION_CLICKS_DAYS', '30d'], ['RETENTION_EVENTS_DAYS', '100000'], ['PARTITIONS_AHEAD_DAYS', '0'], ['PARTITIONS_AHEAD_DAYS', '100']]) {
      expect(() => loadConfig({ DATA_DIR: dir, [variable!]: value })).toThrow(new RegExp(variable!));
    }
  });

  test('every variable is read', () => {
    const config = loadConfig({
      PORT: '4000',
      DATA_DIR: tempDir('config'),
      DATABASE_URL: 'postgres://u:p@db.internal:5432/svc',
      REDIS_URL: 'rediss://cache.internal:6380',
      SESSION_SECRET: SECRET,
      INGEST_SECRET: 'an-ingest-secret-123',
      TRUST_PROXY: '1',
      RATE_LIMIT: 'off',
      CLICK_BACKLOG: '500000',
      TRACKING_THREADS: '2',
      MIRROR_MEMORY_MB: '512',
      MIRROR_THREADS: '4',
      JOURNAL_SYNC_MS: '0',
    });
    expect(config.mirrorMemoryMb).toBe(512);
    expect(config.mirrorThreads).toBe(4);
    expect(config.port).toBe(4000);
    expect(config.trackingThreads).toBe(2);
    expect(config.clickBacklog).toBe(500_000);
    expect(config.journalSyncMs).toBe(0);
    expect(config.databaseUrl).toBe('postgres://u:p@db.internal:5432/svc');
    expect(config.redisUrl).toBe('rediss://cache.internal:6380');
    expect(config.sessionSecret).toBe(SECRET);
    expect(config.ingestSecret).toBe('an-ingest-secret-123');
    expect(config.trustProxy).toBe(1);
    expect(config.rateLimit).toBe(false);
  });

  test('an empty value counts as unset', () => {
    const config = loadConfig({ DATA_DIR: tempDir('config'), PORT: '', DATABASE_URL: '', RATE_LIMIT: '', TRUST_PROXY: ' ' });
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.rateLimit).toBe(true);
    expect(config.trustProxy).toBe(0);
  });

  test('TRUST_PROXY: only when set is X-Forwarded-For trusted, with a hop count', () => {
    const hops = (value: string) => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, TRUST_PROXY: value }).trustProxy;
    expect(hops('on')).toBe(1);
    expect(hops('TRUE')).toBe(1);
    expect(hops('yes')).toBe(1);
    expect(hops('2')).toBe(2);
    expect(hops('off')).toBe(0);
    expect(hops('false')).toBe(0);
    expect(hops('0')).toBe(0);
  });

  test('TRUSTED_PROXIES: comma-separated CIDRs or addresses, parsed once into data a listener thread receives intact', () => {
    expect(loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, TRUST_PROXY: '1' }).trustedProxies).toBeUndefined();
    const config = loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, TRUST_PROXY: '2', TRUSTED_PROXIES: ' 10.0.0.0/8 ,fd00::/8, 203.0.113.7 ' });
    expect(config.trustedProxies).toHaveLength(3);
    const posted = structuredClone(config).trustedProxies!;
    for (const [peer, trusted] of [['10.1.2.3', true], ['::ffff:10.1.2.3', true], ['fd12::1', true], ['203.0.113.7', true], ['203.0.113.8', false], ['fe80::1', false]] as const) {
      expect({ peer, trusted: isTrustedPeer(peer, posted) }).toEqual({ peer, trusted });
    }
  });

  test('TRUSTED_PROXIES: a bad entry or a missing TRUST_PROXY stops the boot naming the variable', () => {
    const load = (env: Record<string, string>) => () => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, ...env });
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0.0/8,,fd00::/8', '10.0.0.0/8; fd00::/8', '2001:db8::/129']) {
      expect(load({ TRUST_PROXY: '1', TRUSTED_PROXIES: bad })).toThrow(/^invalid TRUSTED_PROXIES: ".*" (is not|has)/);
    }
    expect(load({ TRUSTED_PROXIES: '10.0.0.0/8' })).toThrow('invalid TRUSTED_PROXIES: needs TRUST_PROXY');
    expect(load({ TRUST_PROXY: 'off', TRUSTED_PROXIES: '10.0.0.0/8' })).toThrow(ConfigError);
  });

  test('RATE_LIMIT is on unless switched off', () => {
    const on = (value: string) => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, RATE_LIMIT: value }).rateLimit;
    expect(on('on')).toBe(true);
    expect(on('ON')).toBe(true);
    expect(on('off')).toBe(false);
    expect(on('Off')).toBe(false);
    expect(on('0')).toBe(false);
  });

  test('KEY_RATE_LIMIT is off unless a number of requests a minute from 1 to 1,000,000', () => {
    const limit = (value?: string) => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, ...(value === undefined ? {} : { KEY_RATE_LIMIT: value }) }).keyRateLimit;
    expect(limit()).toBeNull();
    expect(limit('off')).toBeNull();
    expect(limit('OFF')).toBeNull();
    expect(limit('')).toBeNull();
    expect(limit('1')).toBe(1);
    expect(limit('600')).toBe(600);
    expect(limit('1000000')).toBe(1_000_000);
    expect(() => limit('1000001')).toThrow('invalid KEY_RATE_LIMIT: 1000001 is more than 1000000 requests a minute');
    // Property: every whole number 1..1,000,000 is taken as itself; every other whole number is refused.
    fc.assert(fc.property(fc.integer({ min: 1, max: 1_000_000 }), (n) => limit(String(n)) === n), { numRuns: 50 });
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -1_000_000, max: 0 }), fc.integer({ min: 1_000_001, max: 2 ** 40 })), (n) => {
        expect(() => limit(String(n))).toThrow(/^invalid KEY_RATE_LIMIT/);
      }),
      { numRuns: 50 },
    );
  });

  test('postbacks are paced at 10 a second per host with a burst of 20 unless configured', () => {
    const defaults = loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET });
    expect([defaults.postbackHostRate, defaults.postbackHostBurst]).toEqual([10, 20]);
    const set = loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, POSTBACK_HOST_RATE: '50', POSTBACK_HOST_BURST: '5' });
    expect([set.postbackHostRate, set.postbackHostBurst]).toEqual([50, 5]);
  });

  test('DOMAIN_VERIFICATION is dns unless switched off', () => {
    const mode = (value: string) => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, DOMAIN_VERIFICATION: value }).domainVerification;
    expect(mode('dns')).toBe('dns');
    expect(mode('off')).toBe('off');
    expect(mode(' OFF ')).toBe('off');
    expect(mode('')).toBe('dns');
  });

  test('GEO_CITY_DB: an existing file, resolved to an absolute path; anything else stops the boot', () => {
    const dir = tempDir('config');
    writeFileSync(join(dir, 'city.mmdb'), 'x');
    const load = (value: string) => loadConfig({ DATA_DIR: dir, SESSION_SECRET: SECRET, GEO_CITY_DB: value }).geoCityDb;
    expect(load(join(dir, 'city.mmdb'))).toBe(join(dir, 'city.mmdb'));
    expect(load(` ${join(dir, '.', 'city.mmdb')} `)).toBe(join(dir, 'city.mmdb'));
    expect(load('')).toBeUndefined();
    expect(() => load(join(dir, 'absent.mmdb'))).toThrow(`invalid GEO_CITY_DB: "${join(dir, 'absent.mmdb')}" is not an existing file`);
    expect(() => load(dir)).toThrow('invalid GEO_CITY_DB');
  });

  test("SKAN_PUBLIC_KEY: a P-256 key as PEM or base64 SPKI replaces Apple's; SKAN_VERIFY is on unless switched off", () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const base64 = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, ...env });
    expect(load({ SKAN_PUBLIC_KEY: pem }).skanPublicKey).toBe(base64);
    expect(load({ SKAN_PUBLIC_KEY: base64 }).skanPublicKey).toBe(base64);
    expect(load({ SKAN_PUBLIC_KEY: '' }).skanPublicKey).toBe(APPLE_SKAN_PUBLIC_KEY);
    const verify = (value: string) => load({ SKAN_VERIFY: value }).skanVerify;
    expect(['on', 'ON', 'true', '1', ''].map(verify)).toEqual([true, true, true, true, true]);
    expect(['off', 'Off', 'false', 'no', '0'].map(verify)).toEqual([false, false, false, false, false]);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(() => load({ SKAN_PUBLIC_KEY: rsa })).toThrow('invalid SKAN_PUBLIC_KEY: the value is not an elliptic-curve P-256 (prime256v1) key');
  });

  test('any port from 1 to 65535 is accepted (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), (port) => {
        expect(loadConfig({ PORT: String(port), SESSION_SECRET: SECRET, DATA_DIR: '/nonexistent' }).port).toBe(port);
      }),
    );
  });
});

describe('loadConfig: a bad value names its variable', () => {
  const cases: [variable: string, value: string][] = [
    ['PORT', 'abc'],
    ['PORT', '0'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '3000.5'],
    ['DATABASE_URL', 'mysql://db/svc'],
    ['DATABASE_URL', 'postgres://'],
    ['REDIS_URL', 'http://cache:6379'],
    ['BASE_URL', 'ftp://example.com'],
    ['BASE_URL', 'example.com'],
    ['BASE_URL', 'http://exa mple.com'],
    ['TRACKING_URL', 'localhost:3000'],
    ['TRACKING_URL', 'https://[bad'],
    ['GOOGLE_ADS_API_URL', 'googleads.googleapis.com/v26'],
    ['GOOGLE_OAUTH_TOKEN_URL', 'ftp://oauth2.googleapis.com/token'],
    ['SESSION_SECRET', 'too-short'],
    ['INGEST_SECRET', 'short'],
    ['TRUST_PROXY', 'maybe'],
    ['TRUST_PROXY', '-1'],
    ['TRUSTED_PROXIES', '10.0.0.0/8'],
    ['RATE_LIMIT', 'sometimes'],
    ['KEY_RATE_LIMIT', '0'],
    ['KEY_RATE_LIMIT', 'on'],
    ['KEY_RATE_LIMIT', '2.5'],
    ['KEY_RATE_LIMIT', '-10'],
    ['KEY_RATE_LIMIT', '1000001'],
    ['KEY_RATE_LIMIT', '10000000'],
    ['DOMAIN_VERIFICATION', 'none'],
    ['DOMAIN_VERIFICATION', 'false'],
    ['CLICK_BACKLOG', '0'],
    ['CLICK_BACKLOG', '-5'],
    ['CLICK_BACKLOG', '1e6'],
    ['CLICK_BACKLOG', '1000000000'],
    ['POSTBACK_HOST_RATE', '0'],
    ['POSTBACK_HOST_RATE', '2.5'],
    ['POSTBACK_HOST_RATE', '100000'],
    ['POSTBACK_HOST_BURST', '0'],
    ['POSTBACK_HOST_BURST', 'many'],
    ['MIRROR_MEMORY_MB', '0'],
    ['MIRROR_MEMORY_MB', '31'],
    ['MIRROR_MEMORY_MB', '1048577'],
    ['MIRROR_MEMORY_MB', '-256'],
    ['MIRROR_MEMORY_MB', '0.5'],
    ['MIRROR_MEMORY_MB', '1GB'],
    ['MIRROR_THREADS', '0'],
    ['MIRROR_THREADS', '100'],
    ['MIRROR_THREADS', '-1'],
    ['MIRROR_THREADS', 'two'],
    ['JOURNAL_SYNC_MS', '-1'],
    ['JOURNAL_SYNC_MS', '0.5'],
    ['JOURNAL_SYNC_MS', '100000'],
    ['JOURNAL_SYNC_MS', '100ms'],
    ['GEO_CITY_DB', '/nonexistent/GeoLite2-City.mmdb'],
    ['SKAN_PUBLIC_KEY', 'not a key'],
    ['SKAN_PUBLIC_KEY', 'AAAA'],
    ['SKAN_VERIFY', 'maybe'],
  ];
  for (const [variable, value] of cases) {
    test(`${variable}=${value}`, () => {
      let caught: unknown;
      try {
        loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, [variable]: value });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).variable).toBe(variable);
      expect((caught as ConfigError).message).toContain(variable);
    });
  }

  test('ports above 65535 always fail naming PORT (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 65536, max: 99999 }), (port) => {
        expect(() => loadConfig({ PORT: String(port), SESSION_SECRET: SECRET })).toThrow(/PORT/);
      }),
    );
  });
});

describe('the persisted session secret', () => {
  test('is generated once per DATA_DIR, private to its owner, and the same on every load', () => {
    const dir = tempDir('config');
    const first = loadConfig({ DATA_DIR: dir }).sessionSecret;
    const second = loadConfig({ DATA_DIR: dir }).sessionSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(second).toBe(first);
    expect(statSync(join(dir, 'session-secret')).mode & 0o777).toBe(0o600);
    expect(loadConfig({ DATA_DIR: tempDir('config') }).sessionSecret).not.toBe(first);
  });

  test('SESSION_SECRET wins and writes no file', () => {
    const dir = tempDir('config');
    expect(loadConfig({ DATA_DIR: dir, SESSION_SECRET: SECRET }).sessionSecret).toBe(SECRET);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('a DATA_DIR that does not exist yet is created', () => {
    const dir = join(tempDir('config'), 'nested', 'data');
    expect(loadConfig({ DATA_DIR: dir }).sessionSecret.length).toBeGreaterThanOrEqual(32);
    expect(readdirSync(dir)).toEqual(['session-secret']);
  });

  test('a truncated secret file is refused, naming SESSION_SECRET', () => {
    const dir = tempDir('config');
    writeFileSync(join(dir, 'session-secret'), 'short');
    expect(() => loadConfig({ DATA_DIR: dir })).toThrow(/SESSION_SECRET/);
  });

  test('processes racing on a fresh DATA_DIR all end up with the same secret', async () => {
    const dir = tempDir('config');
    const script = `const { loadConfig } = await import('./src/config/config.ts'); console.log(loadConfig({ DATA_DIR: ${JSON.stringify(dir)} }).sessionSecret);`;
    const runs = await Promise.all(Array.from({ length: 6 }, () => runBun(['-e', script])));
    for (const run of runs) expect(run.code).toBe(0);
    const secrets = new Set(runs.map((run) => run.stdout.trim()));
    expect(secrets.size).toBe(1);
    expect([...secrets][0]!.length).toBeGreaterThanOrEqual(32);
    // No temporary file is left behind by the losers of the race.
    expect(readdirSync(dir)).toEqual(['session-secret']);
  });
});

describe('uninstall checks', () => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: tempDir('config'), SESSION_SECRET: SECRET, ...env });
  const files = () => {
    const dir = tempDir('push-keys');
    const p8 = join(dir, 'AuthKey.p8');
    writeFileSync(p8, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const account = join(dir, 'service-account.json');
    writeFileSync(account, JSON.stringify({ type: 'service_account', project_id: 'p1', client_email: 'a@p1.iam.gserviceaccount.com', private_key_id: 'k1', private_key: rsa }));
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    return { dir, p8, account, rsa, write };
  };
  const apns = (p8: string) => ({ APNS_KEY_PATH: p8, APNS_KEY_ID: 'ABCDE12345', APNS_TEAM_ID: 'TEAM987654' });

  test('by default: every 24 hours, no provider, the Google token endpoint', () => {
    const config = load({});
    expect(config.uninstallCheckHours).toBe(24);
    expect(config.apns).toBeUndefined();
    expect(config.fcm).toBeUndefined();
    expect(config.googleOauthTokenUrl).toBe('https://oauth2.googleapis.com/token');
  });

  test('UNINSTALL_CHECK_HOURS: 0 (off) to 8760', () => {
    expect(load({ UNINSTALL_CHECK_HOURS: '0' }).uninstallCheckHours).toBe(0);
    expect(load({ UNINSTALL_CHECK_HOURS: '8760' }).uninstallCheckHours).toBe(8760);
    for (const bad of ['8761', '-1', '1.5', 'daily']) expect(() => load({ UNINSTALL_CHECK_HOURS: bad })).toThrow(/invalid UNINSTALL_CHECK_HOURS/);
  });

  test('APNs: the key, key id and team id together; production URL by default, the sandbox when asked', () => {
    const { p8, write } = files();
    expect(load(apns(p8)).apns).toEqual({ keyPath: p8, keyId: 'ABCDE12345', teamId: 'TEAM987654', url: 'https://api.push.apple.com', caPath: undefined });
    const ca = write('relay-ca.pem', '-----BEGIN CERTIFICATE-----\n');
    const sandbox = load({ ...apns(p8), APNS_URL: 'https://api.sandbox.push.apple.com/', APNS_CA_PATH: ca }).apns;
    expect(sandbox?.url).toBe('https://api.sandbox.push.apple.com');
    expect(sandbox?.caPath).toBe(ca);
  });

  test('APNs: a missing part, a malformed id, a URL other than an https origin, or a key that is not a P-256 .p8 stops the boot', () => {
    const { p8, rsa, write, dir } = files();
    expect(() => load({ APNS_KEY_PATH: p8, APNS_KEY_ID: 'ABCDE12345' })).toThrow('invalid APNS_TEAM_ID: is needed with APNS_KEY_PATH and APNS_KEY_ID');
    expect(() => load({ APNS_TEAM_ID: 'TEAM987654' })).toThrow(/invalid APNS_KEY_PATH: is needed with APNS_TEAM_ID/);
    expect(() => load({ ...apns(p8), APNS_KEY_ID: 'abc' })).toThrow(/invalid APNS_KEY_ID/);
    expect(() => load({ ...apns(p8), APNS_TEAM_ID: 'TEAM98765!' })).toThrow(/invalid APNS_TEAM_ID/);
    for (const url of ['http://api.push.apple.com', 'https://api.push.apple.com/3/device', 'api.push.apple.com']) {
      expect(() => load({ ...apns(p8), APNS_URL: url })).toThrow(/invalid APNS_URL/);
    }
    expect(() => load({ ...apns(join(dir, 'missing.p8')) })).toThrow(/invalid APNS_KEY_PATH: .* is not an existing file/);
    expect(() => load({ ...apns(write('rsa.p8', rsa)) })).toThrow('invalid APNS_KEY_PATH: the file is not an APNs .p8 key (a PKCS #8 P-256 private key)');
    expect(() => load({ ...apns(write('garbage.p8', 'not a key')) })).toThrow(/invalid APNS_KEY_PATH: the file is not an APNs \.p8 key/);
    expect(() => load({ ...apns(p8), APNS_CA_PATH: join(dir, 'missing.pem') })).toThrow(/invalid APNS_CA_PATH/);
  });

  test('FCM: a service-account file; the FCM URL and the token endpoint can be moved', () => {
    const { account } = files();
    expect(load({ FCM_CREDENTIALS: account }).fcm).toEqual({ credentialsPath: account, url: 'https://fcm.googleapis.com' });
    const moved = load({ FCM_CREDENTIALS: account, FCM_URL: 'http://127.0.0.1:9099/', GOOGLE_OAUTH_TOKEN_URL: 'http://127.0.0.1:9098/token' });
    expect(moved.fcm?.url).toBe('http://127.0.0.1:9099');
    expect(moved.googleOauthTokenUrl).toBe('http://127.0.0.1:9098/token');
    expect(() => load({ FCM_CREDENTIALS: account, FCM_URL: 'ftp://x' })).toThrow(/invalid FCM_URL/);
  });

  test('FCM: a file that is not a service-account key stops the boot, without echoing its contents', () => {
    const { write, rsa, dir } = files();
    const cases: [string, RegExp][] = [
      [write('not-json.json', `{"private_key": "${'SECRETKEYMATERIAL'}"`), /the file is not a JSON file/],
      [write('user.json', JSON.stringify({ type: 'authorized_user', client_secret: 'SECRETKEYMATERIAL' })), /is not a service-account key file/],
      [write('bad-key.json', JSON.stringify({ type: 'service_account', project_id: 'p', client_email: 'e', private_key: 'SECRETKEYMATERIAL' })), /private_key that is not an RSA private key/],
      [join(dir, 'missing.json'), /is not an existing file/],
    ];
    for (const [path, expected] of cases) {
      let message = '';
      try {
        load({ FCM_CREDENTIALS: path });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^invalid FCM_CREDENTIALS: /);
      expect(message).toMatch(expected);
      expect(message).not.toContain('SECRETKEYMATERIAL');
      expect(message).not.toContain(rsa.slice(40, 80));
    }
  });
});

describe('config errors never echo a secret', () => {
  for (const [variable, value] of [
    ['SESSION_SECRET', 'short-secret-value'],
    ['INGEST_SECRET', 'tiny-secret'],
    ['DATABASE_URL', 'mysql://user:hunter2-password@db/x'],
    ['REDIS_URL', 'http://user:hunter2-password@cache'],
  ] as const) {
    test(`a bad ${variable} is named without its value`, () => {
      let message = '';
      try {
        loadConfig({ DATA_DIR: tempDir('config'), [variable]: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(variable);
      expect(message).not.toContain(value);
      expect(message).not.toContain('hunter2');
    });
  }
});
