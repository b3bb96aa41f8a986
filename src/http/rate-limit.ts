import { RedisClient } from 'bun';

/** Requests per minute per client IP (IPv6 at /64), from the spec's Limits table. */
const PATH_GROUPS: readonly { group: string; matches: (path: string) => boolean; perMinute: number }[] = [
  { group: 'sdk', matches: (p) => p.startsWith('/api/sdk/'), perMinute: 600 },
  { group: 'beacon', matches: (p) => p === '/api/protect/beacon', perMinute: 600 },
  { group: 'v1', matches: (p) => p.startsWith('/api/v1/'), perMinute: 300 },
  { group: 'postback', matches: (p) => p === '/postback', perMinute: 300 },
  { group: 'mcp', matches: (p) => p === '/api/mcp', perMinute: 240 },
  { group: 'skan', matches: (p) => p.startsWith('/api/skan/'), perMinute: 120 },
  { group: 'auth', matches: (p) => p === '/login' || p === '/register', perMinute: 20 },
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

/** Every node shares the counters in Redis, so N nodes still allow the limit once. */
export function redisRateLimiter(url: string, namespace = 'svc:rl'): RateLimiter {
  const redis = new RedisClient(url);
  return {
    async hit(key, limit, now = Date.now()) {
      const window = windowOf(now);
      const redisKey = `${namespace}:${key}:${window.id}`;
      const count = await redis.incr(redisKey);
      if (count === 1) await redis.expire(redisKey, 120);
      return { allowed: count <= limit, retryAfter: window.retryAfter };
    },
    async close() {
      redis.close();
    },
  };
}
