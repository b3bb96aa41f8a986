import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

/** The environment as the service reads it: every variable is a string until parsed here. */
const Environment = T.Object({
  PORT: T.Optional(T.String({ pattern: '^[0-9]{1,5}$' })),
  DATA_DIR: T.Optional(T.String({ minLength: 1 })),
  DATABASE_URL: T.Optional(T.String({ pattern: '^postgres(ql)?://' })),
  REDIS_URL: T.Optional(T.String({ pattern: '^rediss?://' })),
  BASE_URL: T.Optional(T.String({ pattern: '^https?://[^/]+' })),
  TRACKING_URL: T.Optional(T.String({ pattern: '^https?://[^/]+' })),
  SESSION_SECRET: T.Optional(T.String({ minLength: 32 })),
  INGEST_SECRET: T.Optional(T.String({ minLength: 16 })),
  TRUST_PROXY: T.Optional(T.String()),
  RATE_LIMIT: T.Optional(T.Union([T.Literal('on'), T.Literal('off')])),
  POSTBACK_ALLOW_PRIVATE: T.Optional(T.Union([T.Literal('0'), T.Literal('1')])),
  MIRROR_INTERVAL_MS: T.Optional(T.String({ pattern: '^[0-9]+$' })),
});
type Environment = Static<typeof Environment>;

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
  trustProxy: boolean;
  rateLimit: boolean;
  postbackAllowPrivate: boolean;
  mirrorIntervalMs: number;
  /** The running build's version, reported by /api/health. */
  version: string;
}

export class ConfigError extends Error {}

const VERSION: string = JSON.parse(readFileSync(join(import.meta.dir, '..', 'package.json'), 'utf8')).version;

/**
 * Parses the environment once. A bad value throws a ConfigError that names the variable,
 * so the process stops at boot instead of misbehaving later.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(Environment.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const firstError = Value.Errors(Environment, picked).First();
  if (firstError) {
    const variable = firstError.path.replace(/^\//, '') || 'environment';
    throw new ConfigError(`invalid ${variable}: ${firstError.message}`);
  }
  const e = picked as Environment;
  const port = e.PORT ? Number(e.PORT) : 3000;
  if (port < 1 || port > 65535) throw new ConfigError('invalid PORT: must be 1 to 65535');
  const dataDir = resolve(e.DATA_DIR ?? './data');
  const baseUrl = trimSlash(e.BASE_URL ?? `http://localhost:${port}`);
  const trackingUrl = trimSlash(e.TRACKING_URL ?? `http://localhost:${port}`);
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
    trustProxy: e.TRUST_PROXY !== undefined && !['0', 'false', 'off', 'no'].includes(e.TRUST_PROXY.toLowerCase()),
    rateLimit: (e.RATE_LIMIT ?? 'on') === 'on',
    postbackAllowPrivate: e.POSTBACK_ALLOW_PRIVATE === '1',
    mirrorIntervalMs: e.MIRROR_INTERVAL_MS ? Number(e.MIRROR_INTERVAL_MS) : 1000,
    version: VERSION,
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A secret generated on first boot and kept under DATA_DIR, so the embedded default needs no setup. */
function persistentSecret(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}
