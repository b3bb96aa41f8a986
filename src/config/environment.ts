/**
 * The environment as the service reads it: the variables' TypeBox schema, checked before any
 * value is parsed (config.ts), with the patterns and bounds their descriptions name.
 */
import { Type as T, type Static } from '@sinclair/typebox';
import { MAX_EMBEDDED_BUFFERS_MB, MIN_EMBEDDED_BUFFERS_MB, MIN_MIRROR_MEMORY_MB } from './defaults';

const SWITCH = '^(on|off|true|false|yes|no|1|0)$';
/** Switches are read case-insensitively. */
export const LOWER_CASED = new Set(['TRUST_PROXY', 'RATE_LIMIT', 'KEY_RATE_LIMIT', 'DOMAIN_VERIFICATION', 'SKAN_VERIFY', 'GOOGLE_PUBSUB_AUTH',
  'RETENTION_DAYS', 'RETENTION_CLICKS_DAYS', 'RETENTION_IMPRESSIONS_DAYS', 'RETENTION_EVENTS_DAYS', 'RETENTION_CLICK_BEACONS_DAYS', 'RETENTION_ARA_REPORTS_DAYS']);
const HTTP_URL = '^https?://[^/?#\\s]+(/[^?#\\s]*)?$';
const HTTPS_ORIGIN = '^https://[^/?#\\s]+/?$';
/** Apple's key and team ids: ten upper-case letters and digits. */
const APPLE_ID = '^[A-Z0-9]{10}$';
export const MAX_UNINSTALL_CHECK_HOURS = 8760;
/** 1 TiB: a larger MIRROR_MEMORY_MB is a typo, not a plan. */
export const MAX_MIRROR_MEMORY_MB = 1024 * 1024;
/** A retention: whole days kept before today, or off (keep everything). */
const RETENTION = '^(off|[1-9][0-9]{0,4})$';
const RETENTION_TEXT = 'off or a number of days, 1 to 99999';
/** The largest requests-a-minute a key may be given (KEY_RATE_LIMIT and each key's own limit). */
export const MAX_KEY_RATE_LIMIT = 1_000_000;

/**
 * The environment as the service reads it: every variable is a string until parsed here.
 * An empty value counts as unset, so `FOO=` in an env file means "use the default".
 */
export const Environment = T.Object({
  PORT: T.Optional(T.String({ pattern: '^[0-9]{1,5}$', description: 'a TCP port, 1 to 65535' })),
  DATA_DIR: T.Optional(T.String({ minLength: 1 })),
  DATABASE_URL: T.Optional(T.String({ pattern: '^postgres(ql)?://\\S+$', description: 'a postgres:// URL' })),
  REDIS_URL: T.Optional(T.String({ pattern: '^rediss?://\\S+$', description: 'a redis:// or rediss:// URL' })),
  BASE_URL: T.Optional(T.String({ pattern: HTTP_URL, description: 'an http(s) URL' })),
  TRACKING_URL: T.Optional(T.String({ pattern: HTTP_URL, description: 'an http(s) URL' })),
  SESSION_SECRET: T.Optional(T.String({ minLength: 32, description: 'at least 32 characters' })),
  INGEST_SECRET: T.Optional(T.String({ minLength: 16, description: 'at least 16 characters' })),
  TRUST_PROXY: T.Optional(T.String({ pattern: '^(on|off|true|false|yes|no|[0-9]{1,2})$', description: 'on/off or a number of proxy hops' })),
  TRUSTED_PROXIES: T.Optional(T.String({ minLength: 1, description: 'comma-separated CIDRs' })),
  RATE_LIMIT: T.Optional(T.String({ pattern: SWITCH, description: 'on or off' })),
  KEY_RATE_LIMIT: T.Optional(T.String({ pattern: '^(off|[1-9][0-9]{0,6})$', description: `off, or requests a minute, 1 to ${MAX_KEY_RATE_LIMIT}` })),
  POSTBACK_ALLOW_PRIVATE: T.Optional(T.Union([T.Literal('0'), T.Literal('1')])),
  POSTBACK_HOST_RATE: T.Optional(T.String({ pattern: '^[1-9][0-9]{0,4}$', description: 'a number of sends per second, 1 to 99999' })),
  POSTBACK_HOST_BURST: T.Optional(T.String({ pattern: '^[1-9][0-9]{0,4}$', description: 'a number of sends, 1 to 99999' })),
  MIRROR_INTERVAL_MS: T.Optional(T.String({ pattern: '^[0-9]+$' })),
  RETENTION_DAYS: T.Optional(T.String({ pattern: RETENTION, description: RETENTION_TEXT })),
  RETENTION_CLICKS_DAYS: T.Optional(T.String({ pattern: RETENTION, description: RETENTION_TEXT })),
  RETENTION_IMPRESSIONS_DAYS: T.Optional(T.String({ pattern: RETENTION, description: RETENTION_TEXT })),
  RETENTION_EVENTS_DAYS: T.Optional(T.String({ pattern: RETENTION, description: RETENTION_TEXT })),
  RETENTION_CLICK_BEACONS_DAYS: T.Optional(T.String({ pattern: RETENTION, description: RETENTION_TEXT })),
  RETENTION_ARA_REPORTS_DAYS: T.Optional(T.String({ pattern: RETENTION, description: RETENTION_TEXT })),
  PARTITIONS_AHEAD_DAYS: T.Optional(T.String({ pattern: '^[1-9][0-9]?$', description: 'a number of days, 1 to 99' })),
  ERASURE_SWEEP_SECONDS: T.Optional(T.String({ pattern: '^[0-9]{1,5}$', description: 'a number of seconds, 0 to 99999' })),
  MIRROR_MEMORY_MB: T.Optional(T.String({ pattern: '^[0-9]{1,7}$', description: `a number of MiB, ${MIN_MIRROR_MEMORY_MB} to ${MAX_MIRROR_MEMORY_MB}` })),
  EMBEDDED_BUFFERS_MB: T.Optional(T.String({ pattern: '^[0-9]{1,4}$', description: `a number of MiB, ${MIN_EMBEDDED_BUFFERS_MB} to ${MAX_EMBEDDED_BUFFERS_MB}` })),
  EMBEDDED_STORE_THREAD: T.Optional(T.String({ pattern: SWITCH, description: 'on or off' })),
  MIRROR_THREADS: T.Optional(T.String({ pattern: '^[1-9][0-9]?$', description: 'a number of threads, 1 to 99' })),
  TRACKING_THREADS: T.Optional(T.String({ pattern: '^[0-9]{1,2}$', description: 'a number of threads, 0 to 99' })),
  CLICK_BACKLOG: T.Optional(T.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'a number of records, 1 to 999999999' })),
  DOMAIN_VERIFICATION: T.Optional(T.String({ pattern: '^(dns|off)$', description: 'dns or off' })),
  JOURNAL_SYNC_MS: T.Optional(T.String({ pattern: '^[0-9]{1,5}$', description: 'milliseconds, 0 to 99999' })),
  GEO_CITY_DB: T.Optional(T.String({ minLength: 1, description: 'the path of an MMDB city database' })),
  GOOGLE_ADS_API_URL: T.Optional(T.String({ pattern: HTTP_URL, description: 'an http(s) URL' })),
  GOOGLE_OAUTH_TOKEN_URL: T.Optional(T.String({ pattern: HTTP_URL, description: 'an http(s) URL' })),
  SKAN_PUBLIC_KEY: T.Optional(T.String({ minLength: 1, maxLength: 4096, description: 'a P-256 public key, PEM or base64 SPKI' })),
  SKAN_VERIFY: T.Optional(T.String({ pattern: SWITCH, description: 'on or off' })),
  APPLE_ROOT_CERTS: T.Optional(T.String({ minLength: 1, description: 'comma-separated paths of PEM or DER certificate files' })),
  GOOGLE_PLAY_CREDENTIALS: T.Optional(T.String({ minLength: 1, description: 'the path of a service account JSON key' })),
  GOOGLE_PLAY_API_URL: T.Optional(T.String({ pattern: HTTP_URL, description: 'an http(s) URL' })),
  GOOGLE_PUBSUB_TOKEN: T.Optional(T.String({ minLength: 16, maxLength: 256, pattern: '^[A-Za-z0-9._~-]+$', description: '16 to 256 URL-safe characters' })),
  GOOGLE_PUBSUB_AUDIENCE: T.Optional(T.String({ minLength: 1, maxLength: 2048, description: 'the audience of the push subscription' })),
  GOOGLE_PUBSUB_EMAIL: T.Optional(T.String({ pattern: '^[^@\\s]+@[^@\\s]+$', description: 'a service account e-mail address' })),
  GOOGLE_PUBSUB_JWKS_URL: T.Optional(T.String({ pattern: HTTP_URL, description: 'an http(s) URL' })),
  GOOGLE_PUBSUB_AUTH: T.Optional(T.String({ pattern: SWITCH, description: 'on or off' })),
  UNINSTALL_CHECK_HOURS: T.Optional(T.String({ pattern: '^[0-9]{1,4}$', description: `a number of hours, 0 to ${MAX_UNINSTALL_CHECK_HOURS}` })),
  APNS_KEY_PATH: T.Optional(T.String({ minLength: 1, description: 'the path of an APNs .p8 key' })),
  APNS_KEY_ID: T.Optional(T.String({ pattern: APPLE_ID, description: 'a 10-character APNs key id' })),
  APNS_TEAM_ID: T.Optional(T.String({ pattern: APPLE_ID, description: 'a 10-character Apple team id' })),
  APNS_URL: T.Optional(T.String({ pattern: HTTPS_ORIGIN, description: 'an https:// origin without a path' })),
  APNS_CA_PATH: T.Optional(T.String({ minLength: 1, description: 'the path of a PEM certificate file' })),
  FCM_CREDENTIALS: T.Optional(T.String({ minLength: 1, description: 'the path of a service-account JSON file' })),
  FCM_URL: T.Optional(T.String({ pattern: HTTP_URL, description: 'an http(s) URL' })),
});
export type Environment = Static<typeof Environment>;

/** Variables whose values may carry a secret (a password inside a URL counts). */
export const SECRET_VARIABLES = new Set(['SESSION_SECRET', 'INGEST_SECRET', 'DATABASE_URL', 'REDIS_URL', 'GOOGLE_PUBSUB_TOKEN']);
