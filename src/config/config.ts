/**
 * The node's configuration: the environment read once at boot (environment.ts), each value parsed
 * and checked (values.ts and the parsers beside it), so a bad one stops the boot with a
 * ConfigError naming it (docs/configuration.md).
 */
import { Value } from '@sinclair/typebox/value';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readApnsKey, readFcmAccount } from './credential-files';
import { DEFAULT_EMBEDDED_BUFFERS_MB, DEFAULT_JOURNAL_SYNC_MS, DEFAULT_MIRROR_MEMORY_MB, DEFAULT_MIRROR_THREADS, MAX_EMBEDDED_BUFFERS_MB, MIN_EMBEDDED_BUFFERS_MB, MIN_MIRROR_MEMORY_MB } from './defaults';
import { Environment, LOWER_CASED, MAX_KEY_RATE_LIMIT, MAX_MIRROR_MEMORY_MB, MAX_UNINSTALL_CHECK_HOURS, SECRET_VARIABLES } from './environment';
import { persistentSecret } from './session-secret';
import { APPLE_SKAN_PUBLIC_KEY, normaliseSkanPublicKey } from './skan-key';
import { parseTrustedProxies, type TrustedNetwork } from './trusted-proxies';
import { ConfigError, credential, existingFile, httpUrl, isOn, parseUrl, proxyHops } from './values';

export { ConfigError } from './values';



export interface Config {
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  baseUrl: string;
  trackingUrl: string;
  /** Host (with port) of TRACKING_URL: links without a custom domain answer only here. */
  trackingHost: string;
  sessionSecret: string;
  ingestSecret: string | undefined;
  /**
   * How many reverse proxies in front of the service append to X-Forwarded-For; 0 means the
   * header is ignored and the socket peer is the client. Pass it to http/client-ip `clientIp`.
   */
  trustProxy: number;
  /**
   * TRUSTED_PROXIES: when set, X-Forwarded-For is read only from socket peers in these networks
   * (parsed once here; match with config/trusted-proxies `isTrustedPeer`).
   */
  trustedProxies: TrustedNetwork[] | undefined;
  rateLimit: boolean;
  /**
   * KEY_RATE_LIMIT: requests a minute for each API key and SDK key that has no limit of its own;
   * null (off, the default) leaves those to the per-IP limits alone. Keys with a limit of their
   * own are held to it either way, while `rateLimit` is on (src/auth/key-rate-limit.ts).
   */
  keyRateLimit: number | null;
  postbackAllowPrivate: boolean;
  /** POSTBACK_HOST_RATE and POSTBACK_HOST_BURST: each node's token bucket per postback destination host. */
  postbackHostRate: number;
  postbackHostBurst: number;
  mirrorIntervalMs: number;
  /**
   * RETENTION_DAYS and its per-table overrides (RETENTION_CLICKS_DAYS, ...): whole days kept
   * before today (UTC) per day-partitioned table; a table not named is kept whole (docs/data-lifecycle.md, "Retention").
   */
  retentionDays: Partial<Record<RetainedTable, number>>;
  /** PARTITIONS_AHEAD_DAYS: day partitions each node makes ahead of today (src/partitions). */
  partitionsAheadDays: number;
  /** ERASURE_SWEEP_SECONDS: how long after its first pass an erasure request sweeps again (docs/privacy.md). */
  erasureSweepSeconds: number;
  /** MIRROR_MEMORY_MB: DuckDB's memory_limit for the analytics mirror, in MiB (src/analytics/mirror/mirror-settings.ts). */
  mirrorMemoryMb: number;
  /** EMBEDDED_BUFFERS_MB: the embedded store's shared_buffers, in MiB (src/db/pglite.ts). */
  embeddedBuffersMb: number;
  /** EMBEDDED_STORE_THREAD: PGlite in a thread of its own (src/db/pglite.thread.ts); on unless set off. */
  embeddedStoreThread: boolean;
  /** MIRROR_THREADS: DuckDB's worker threads for the analytics mirror. */
  mirrorThreads: number;
  /** CLICK_BACKLOG: journaled clicks at which the batcher stops giving way to redirects (default in click-pipeline.ts). */
  clickBacklog: number | undefined;
  /** JOURNAL_SYNC_MS: how often the click journal is synced to the disk; 0 leaves it to the kernel's writeback. */
  journalSyncMs: number;
  /**
   * TRACKING_THREADS: threads that answer GET /c and GET /i beside the main thread, on the same
   * port (src/tracking/listeners/listeners.ts). Postgres only; default: defaultTrackingThreads.
   */
  trackingThreads: number;
  /**
   * DOMAIN_VERIFICATION: `dns` (default) serves a custom domain's links only once its holder has
   * proved control of it with a TXT record; `off` serves every domain (docs/management-api.md).
   */
  domainVerification: DomainVerification;
  /**
   * GEO_CITY_DB: an MMDB city database (GeoLite2-City, say) used instead of the shipped DB-IP
   * files for regions and cities (src/ipintel/geo/city-db.ts); an absolute path to an existing file.
   */
  geoCityDb: string | undefined;
  /** GOOGLE_ADS_API_URL: the Google Ads REST base, version included; the IP-exclusion sync calls it (docs/protect-sync.md). */
  googleAdsApiUrl: string;
  /**
   * GOOGLE_OAUTH_TOKEN_URL: Google's OAuth token endpoint: the Google Ads sync exchanges a refresh
   * token there, the FCM client a service account's signed assertion.
   */
  googleOauthTokenUrl: string;
  /**
   * SKAN_PUBLIC_KEY: the key SKAdNetwork postbacks are verified with, base64 SPKI (src/config/skan-key.ts);
   * Apple's own unless set (for tests and private networks).
   */
  skanPublicKey: string;
  /** SKAN_VERIFY: false stores postbacks whose signature fails, marked verified: false (docs/skan.md). */
  skanVerify: boolean;
  /**
   * APPLE_ROOT_CERTS: certificate files trusted beside the shipped Apple Root CA - G3 when App
   * Store notifications are verified (src/subscriptions/apple-roots.ts); absolute paths.
   */
  appleRootCerts: string[];
  /** GOOGLE_PLAY_CREDENTIALS: a service account key; when set, Google Play's API decides a purchase's state. */
  googlePlayCredentials: string | undefined;
  /** GOOGLE_PLAY_API_URL: the root of the Google Play Developer API (a local fake in tests). */
  googlePlayApiUrl: string;
  /** The checks on Pub/Sub pushes to POST /api/subscriptions/google (src/subscriptions/pubsub-auth.ts). */
  googlePubsub: GooglePubsubConfig;
  /**
   * UNINSTALL_CHECK_HOURS: how often each install with a push token gets a silent push to learn
   * whether the app is still there; 0 turns the checker off (docs/uninstalls.md).
   */
  uninstallCheckHours: number;
  /** APNs token auth for the iOS and tvOS checks; undefined without APNS_KEY_PATH. */
  apns: ApnsSettings | undefined;
  /** FCM HTTP v1 for the Android and Android TV checks; undefined without FCM_CREDENTIALS. */
  fcm: FcmSettings | undefined;
  /** The running build's version, reported by /api/health. */
  version: string;
}

export interface GooglePubsubConfig {
  /**
   * GOOGLE_PUBSUB_AUTH: false accepts every push unchecked (unsafe). True (the default) refuses
   * every push until GOOGLE_PUBSUB_TOKEN or GOOGLE_PUBSUB_AUDIENCE sets a check.
   */
  auth: boolean;
  /** GOOGLE_PUBSUB_TOKEN: the push URL's `?token=` must equal it. */
  token: string | undefined;
  /** GOOGLE_PUBSUB_AUDIENCE: a push must carry Google's OIDC token for this audience. */
  audience: string | undefined;
  /** GOOGLE_PUBSUB_EMAIL: the OIDC token's service account. */
  email: string | undefined;
  /** GOOGLE_PUBSUB_JWKS_URL: Google's signing keys for those tokens. */
  jwksUrl: string;
}

export const DEFAULT_GOOGLE_PLAY_API_URL = 'https://androidpublisher.googleapis.com/';
export const DEFAULT_GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';

export type DomainVerification = 'dns' | 'off';

/** The Google Ads API version the sync speaks (v26, October 2026); GOOGLE_ADS_API_URL overrides it. */
export const DEFAULT_GOOGLE_ADS_API_URL = 'https://googleads.googleapis.com/v26';
export const DEFAULT_GOOGLE_OAUTH_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export interface ApnsSettings {
  /** APNS_KEY_PATH: the `.p8` signing key, checked at boot. */
  keyPath: string;
  keyId: string;
  teamId: string;
  /** APNS_URL: production by default; https://api.sandbox.push.apple.com for development builds. */
  url: string;
  /** APNS_CA_PATH: certificates trusted for the APNs connection besides the system's. */
  caPath: string | undefined;
}

export interface FcmSettings {
  /** FCM_CREDENTIALS: the service-account JSON file, checked at boot. */
  credentialsPath: string;
  /** FCM_URL: the HTTP v1 API's origin (and path prefix). */
  url: string;
}

/** The default TRACKING_THREADS stops here: each thread holds its own connections and click writer. */
export const DEFAULT_MAX_TRACKING_THREADS = 3;

/**
 * Listener threads by default: one per core beyond the first two, so the event loops answering
 * redirects leave a core to Postgres, the click writers and the mirror; a busy loop beyond that
 * shares a core with them (docs/click-pipeline.md, "Listener threads").
 */
export function defaultTrackingThreads(cores: number): number {
  return Math.min(DEFAULT_MAX_TRACKING_THREADS, Math.max(0, cores - 2));
}

function trackingThreads(value: string | undefined, databaseUrl: string | undefined): number {
  if (value === undefined) return databaseUrl ? defaultTrackingThreads(navigator.hardwareConcurrency) : 0;
  const threads = Number(value);
  if (threads > 0 && !databaseUrl) {
    throw new ConfigError('TRACKING_THREADS', `${threads} needs DATABASE_URL: the embedded store lives in the main thread, so only it can answer redirects`);
  }
  return threads;
}


const VERSION: string = JSON.parse(readFileSync(join(import.meta.dir, '..', '..', 'package.json'), 'utf8')).version;


/** Parses the environment once; a bad value throws a ConfigError naming the variable, so boot fails fast. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(Environment.properties)) {
    const value = env[key];
    if (value === undefined || value.trim() === '') continue;
    picked[key] = LOWER_CASED.has(key) ? value.trim().toLowerCase() : value.trim();
  }
  const firstError = Value.Errors(Environment, picked).First();
  if (firstError) {
    const variable = firstError.path.replace(/^\//, '') || 'environment';
    const schema = firstError.schema as { description?: string };
    // Secrets and credential-bearing URLs are never echoed: the message ends up in logs.
    const shown = SECRET_VARIABLES.has(variable) ? 'the value' : JSON.stringify(firstError.value);
    throw new ConfigError(variable, `${shown} is not ${schema.description ?? 'valid'} (${firstError.message})`);
  }
  const e = picked as Environment;
  const port = e.PORT ? Number(e.PORT) : 3000;
  if (port < 1 || port > 65535) throw new ConfigError('PORT', `${port} is not a TCP port, 1 to 65535`);
  const dataDir = resolve(e.DATA_DIR ?? './data');
  const baseUrl = httpUrl('BASE_URL', e.BASE_URL ?? `http://localhost:${port}`);
  const trackingUrl = httpUrl('TRACKING_URL', e.TRACKING_URL ?? `http://localhost:${port}`);
  if (e.DATABASE_URL) parseUrl('DATABASE_URL', e.DATABASE_URL);
  if (e.REDIS_URL) parseUrl('REDIS_URL', e.REDIS_URL);
  const trustProxy = proxyHops(e.TRUST_PROXY);
  return {
    port,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    baseUrl,
    trackingUrl,
    trackingHost: new URL(trackingUrl).host,
    sessionSecret: e.SESSION_SECRET ?? persistentSecret(dataDir, 'session-secret'),
    ingestSecret: e.INGEST_SECRET,
    trustProxy,
    trustedProxies: trustedProxies(e.TRUSTED_PROXIES, trustProxy),
    rateLimit: e.RATE_LIMIT === undefined || isOn(e.RATE_LIMIT),
    keyRateLimit: keyRateLimit(e.KEY_RATE_LIMIT),
    postbackAllowPrivate: e.POSTBACK_ALLOW_PRIVATE === '1',
    postbackHostRate: e.POSTBACK_HOST_RATE ? Number(e.POSTBACK_HOST_RATE) : 10,
    postbackHostBurst: e.POSTBACK_HOST_BURST ? Number(e.POSTBACK_HOST_BURST) : 20,
    mirrorIntervalMs: e.MIRROR_INTERVAL_MS ? Number(e.MIRROR_INTERVAL_MS) : 1000,
    retentionDays: retentionDays(e),
    partitionsAheadDays: e.PARTITIONS_AHEAD_DAYS ? Number(e.PARTITIONS_AHEAD_DAYS) : 7,
    erasureSweepSeconds: e.ERASURE_SWEEP_SECONDS ? Number(e.ERASURE_SWEEP_SECONDS) : 60,
    mirrorMemoryMb: mebibytes('MIRROR_MEMORY_MB', e.MIRROR_MEMORY_MB, { fallback: DEFAULT_MIRROR_MEMORY_MB, min: MIN_MIRROR_MEMORY_MB, max: MAX_MIRROR_MEMORY_MB }),
    embeddedBuffersMb: mebibytes('EMBEDDED_BUFFERS_MB', e.EMBEDDED_BUFFERS_MB, { fallback: DEFAULT_EMBEDDED_BUFFERS_MB, min: MIN_EMBEDDED_BUFFERS_MB, max: MAX_EMBEDDED_BUFFERS_MB }),
    embeddedStoreThread: e.EMBEDDED_STORE_THREAD === undefined || isOn(e.EMBEDDED_STORE_THREAD),
    mirrorThreads: e.MIRROR_THREADS ? Number(e.MIRROR_THREADS) : DEFAULT_MIRROR_THREADS,
    clickBacklog: e.CLICK_BACKLOG ? Number(e.CLICK_BACKLOG) : undefined,
    journalSyncMs: e.JOURNAL_SYNC_MS ? Number(e.JOURNAL_SYNC_MS) : DEFAULT_JOURNAL_SYNC_MS,
    trackingThreads: trackingThreads(e.TRACKING_THREADS, e.DATABASE_URL),
    domainVerification: e.DOMAIN_VERIFICATION === 'off' ? 'off' : 'dns',
    geoCityDb: existingFile('GEO_CITY_DB', e.GEO_CITY_DB),
    googleAdsApiUrl: httpUrl('GOOGLE_ADS_API_URL', e.GOOGLE_ADS_API_URL ?? DEFAULT_GOOGLE_ADS_API_URL),
    googleOauthTokenUrl: httpUrl('GOOGLE_OAUTH_TOKEN_URL', e.GOOGLE_OAUTH_TOKEN_URL ?? DEFAULT_GOOGLE_OAUTH_TOKEN_URL),
    skanPublicKey: skanPublicKey(e.SKAN_PUBLIC_KEY),
    skanVerify: e.SKAN_VERIFY === undefined || isOn(e.SKAN_VERIFY),
    appleRootCerts: (e.APPLE_ROOT_CERTS?.split(',').map((path) => path.trim()).filter((path) => path !== '') ?? []).map((path) => existingFile('APPLE_ROOT_CERTS', path)!),
    googlePlayCredentials: existingFile('GOOGLE_PLAY_CREDENTIALS', e.GOOGLE_PLAY_CREDENTIALS),
    googlePlayApiUrl: e.GOOGLE_PLAY_API_URL ? `${httpUrl('GOOGLE_PLAY_API_URL', e.GOOGLE_PLAY_API_URL)}/` : DEFAULT_GOOGLE_PLAY_API_URL,
    googlePubsub: googlePubsub(e),
    uninstallCheckHours: uninstallCheckHours(e.UNINSTALL_CHECK_HOURS),
    apns: apnsSettings(e),
    fcm: fcmSettings(e),
    version: VERSION,
  };
}

/** The day-partitioned tables a retention applies to, with the variable that overrides RETENTION_DAYS for each. */
const RETENTION_OVERRIDES = {
  clicks: 'RETENTION_CLICKS_DAYS',
  impressions: 'RETENTION_IMPRESSIONS_DAYS',
  events: 'RETENTION_EVENTS_DAYS',
  click_beacons: 'RETENTION_CLICK_BEACONS_DAYS',
  ara_reports: 'RETENTION_ARA_REPORTS_DAYS',
} as const satisfies Record<string, keyof Environment>;
export type RetainedTable = keyof typeof RETENTION_OVERRIDES;

/** A table's own variable wins over RETENTION_DAYS; `off` in either keeps the table whole. */
function retentionDays(e: Environment): Partial<Record<RetainedTable, number>> {
  const days: Partial<Record<RetainedTable, number>> = {};
  for (const [table, variable] of Object.entries(RETENTION_OVERRIDES) as [RetainedTable, keyof Environment][]) {
    const value = (e[variable] as string | undefined) ?? e.RETENTION_DAYS;
    if (value !== undefined && value !== 'off') days[table] = Number(value);
  }
  return days;
}

function googlePubsub(e: Environment): GooglePubsubConfig {
  if (e.GOOGLE_PUBSUB_EMAIL && !e.GOOGLE_PUBSUB_AUDIENCE) {
    throw new ConfigError('GOOGLE_PUBSUB_EMAIL', 'needs GOOGLE_PUBSUB_AUDIENCE: the e-mail is checked inside the OIDC token, which is verified only when an audience is set');
  }
  const auth = e.GOOGLE_PUBSUB_AUTH === undefined || isOn(e.GOOGLE_PUBSUB_AUTH);
  if (!auth && (e.GOOGLE_PUBSUB_TOKEN || e.GOOGLE_PUBSUB_AUDIENCE)) {
    throw new ConfigError('GOOGLE_PUBSUB_AUTH', 'off turns the push checks off, so GOOGLE_PUBSUB_TOKEN and GOOGLE_PUBSUB_AUDIENCE must be unset');
  }
  return {
    auth,
    token: e.GOOGLE_PUBSUB_TOKEN,
    audience: e.GOOGLE_PUBSUB_AUDIENCE,
    email: e.GOOGLE_PUBSUB_EMAIL,
    jwksUrl: e.GOOGLE_PUBSUB_JWKS_URL ? httpUrl('GOOGLE_PUBSUB_JWKS_URL', e.GOOGLE_PUBSUB_JWKS_URL) : DEFAULT_GOOGLE_JWKS_URL,
  };
}


function skanPublicKey(value: string | undefined): string {
  if (value === undefined) return APPLE_SKAN_PUBLIC_KEY;
  try {
    return normaliseSkanPublicKey(value);
  } catch (error) {
    throw new ConfigError('SKAN_PUBLIC_KEY', `the value ${(error as Error).message}`);
  }
}

function uninstallCheckHours(value: string | undefined): number {
  const hours = value === undefined ? 24 : Number(value);
  if (hours > MAX_UNINSTALL_CHECK_HOURS) throw new ConfigError('UNINSTALL_CHECK_HOURS', `${hours} is not a number of hours, 0 to ${MAX_UNINSTALL_CHECK_HOURS}`);
  return hours;
}

/** APNs needs its key, key id and team id together; the key is read now, so a bad file stops the boot. */
function apnsSettings(e: Environment): ApnsSettings | undefined {
  const given = { APNS_KEY_PATH: e.APNS_KEY_PATH, APNS_KEY_ID: e.APNS_KEY_ID, APNS_TEAM_ID: e.APNS_TEAM_ID };
  const missing = Object.entries(given).filter(([, value]) => value === undefined).map(([name]) => name);
  if (missing.length === 3) return undefined;
  if (missing.length > 0) throw new ConfigError(missing[0]!, `is needed with ${Object.keys(given).filter((name) => !missing.includes(name)).join(' and ')}`);
  const keyPath = existingFile('APNS_KEY_PATH', e.APNS_KEY_PATH)!;
  credential('APNS_KEY_PATH', () => readApnsKey(keyPath));
  return {
    keyPath,
    keyId: e.APNS_KEY_ID!,
    teamId: e.APNS_TEAM_ID!,
    url: httpUrl('APNS_URL', e.APNS_URL ?? 'https://api.push.apple.com'),
    caPath: existingFile('APNS_CA_PATH', e.APNS_CA_PATH),
  };
}

function fcmSettings(e: Environment): FcmSettings | undefined {
  const credentialsPath = existingFile('FCM_CREDENTIALS', e.FCM_CREDENTIALS);
  if (credentialsPath === undefined) return undefined;
  credential('FCM_CREDENTIALS', () => readFcmAccount(credentialsPath));
  return { credentialsPath, url: httpUrl('FCM_URL', e.FCM_URL ?? 'https://fcm.googleapis.com') };
}




function keyRateLimit(value: string | undefined): number | null {
  if (value === undefined || value === 'off') return null;
  const perMinute = Number(value);
  if (perMinute > MAX_KEY_RATE_LIMIT) throw new ConfigError('KEY_RATE_LIMIT', `${perMinute} is more than ${MAX_KEY_RATE_LIMIT} requests a minute`);
  return perMinute;
}

/** A number of MiB the schema let through as digits, checked against its range; `fallback` when unset. */
function mebibytes(variable: string, value: string | undefined, { fallback, min, max }: { fallback: number; min: number; max: number }): number {
  if (value === undefined) return fallback;
  const mb = Number(value);
  if (mb < min || mb > max) throw new ConfigError(variable, `${mb} is not a number of MiB, ${min} to ${max}`);
  return mb;
}

function trustedProxies(value: string | undefined, hops: number): TrustedNetwork[] | undefined {
  if (value === undefined) return undefined;
  if (hops === 0) throw new ConfigError('TRUSTED_PROXIES', 'needs TRUST_PROXY (the number of proxy hops); without it X-Forwarded-For is never read');
  try {
    return parseTrustedProxies(value);
  } catch (error) {
    throw new ConfigError('TRUSTED_PROXIES', (error as Error).message);
  }
}



