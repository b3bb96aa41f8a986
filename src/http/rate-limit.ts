import { RedisClient } from 'bun';

/**
 * Requests per minute per client IP (IPv6 at /64), from the spec's Limits table; password
 * changes share the sign-in budget (docs/http-rules.md, "Rate limits").
 */
const PATH_GROUPS: readonly { group: string; matches: (path: string) => boolean; perMinute: number }[] = [
  { group: 'sdk', matches: (p) => p.startsWith('/api/sdk/'), perMinute: 600 },
  { group: 'beacon', matches: (p) => p === '/api/protect/beacon', perMinute: 600 },
  { group: 'v1', matches: (p) => p.startsWith('/api/v1/'), perMinute: 300 },
  { group: 'postback', matches: (p) => p === '/postback', perMinute: 300 },
  { group: 'mcp', matches: (p) => p === '/api/mcp', perMinute: 240 },
  { group: 'skan', matches: (p) => p.startsWith('/api/skan/'), perMinute: 120 },
  { group: 'auth', matches: (p) => p === '/login' || p === '/register' || p === '/api/dashboard/password', perMinute: 20 },
];

export function rateLimitGroup(path: string): { group: string; perMinute: number } | undefined {
  return PATH_GROUPS.find((g) => g.matches(path));
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the current window ends. */
  retryAfter: number;
}

/** Fixed one-minute windows: a counter per (group, client, minute). */
export interface RateLimiter {
  hit(key: string, limit: number, now?: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;

function windowOf(now: number) {
  const start = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  return { id: start / WINDOW_MS, retryAfter: Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000)) };
}

/** One node: counters in memory, old windows dropped as time moves on. */
export function memoryRateLimiter(): RateLimiter {
  let currentWindow = -1;
  let counts = new Map<string, number>();
  return {
    async hit(key, limit, now = Date.now()) {
      const window = windowOf(now);
      if (window.id !== currentWindow) {
        currentWindow = window.id;
        counts = new Map();
      }
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return { allowed: count <= limit, retryAfter: window.retryAfter };
    },
    async close() {},
  };
}

export interface RedisRateLimiterOptions {
  /** Key prefix; nodes that must share limits use the same one. */
  namespace?: string;
  /** Used while Redis is unreachable, so an outage degrades limits to per node instead of failing requests. */
  fallback?: RateLimiter;
  /** A Redis reply slower than this counts as an outage for this request. */
  timeoutMs?: number;
  /** After a failure, Redis is not tried again for this long. */
  retryMs?: number;
  log?: (message: string) => void;
}

/**
 * Every node shares the counters in Redis, so N nodes still allow the limit once. INCR and
 * PEXPIRE go out pipelined together, so a counter never outlives its window by more than
 * a minute. Commands are never queued while disconnected: a request waits at most `timeoutMs`.
 */
export function redisRateLimiter(url: string, options: RedisRateLimiterOptions = {}): RateLimiter {
  const namespace = options.namespace ?? 'svc:rl';
  const fallback = options.fallback ?? memoryRateLimiter();
  const timeoutMs = options.timeoutMs ?? 1000;
  const retryMs = options.retryMs ?? 5000;
  const log = options.log ?? ((message: string) => console.error(message));
  const redis = new RedisClient(url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: timeoutMs });
  let connecting: Promise<boolean> | undefined;
  let retryAt = 0;
  let healthy = true;

  const outage = (error: unknown) => {
    retryAt = Date.now() + retryMs;
    if (healthy) log(`rate limits: Redis unavailable (${(error as Error).message}); counting on this node until it returns`);
    healthy = false;
  };
  const connected = (): Promise<boolean> | boolean => {
    if (redis.connected) return true;
    if (Date.now() < retryAt) return false;
    connecting ??= withTimeout(redis.connect(), timeoutMs)
      .then(() => true, (error) => (outage(error), false))
      .finally(() => (connecting = undefined));
    return connecting;
  };

  return {
    async hit(key, limit, now = Date.now()) {
      const window = windowOf(now);
      if (await connected()) {
        const redisKey = `${namespace}:${key}:${window.id}`;
        try {
          const [count] = await withTimeout(
            Promise.all([redis.incr(redisKey), redis.send('PEXPIRE', [redisKey, String(2 * WINDOW_MS)])]),
            timeoutMs,
          );
          if (!healthy) log('rate limits: Redis is back; counting shared across nodes again');
          healthy = true;
          return { allowed: count <= limit, retryAfter: window.retryAfter };
        } catch (error) {
          outage(error);
        }
      }
      return fallback.hit(key, limit, now);
    },
    async close() {
      redis.close();
      await fallback.close();
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no reply within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
