import { t } from 'elysia';
import type { Config } from '../config/config';
import { MAX_KEY_RATE_LIMIT } from '../config/environment';
import { rateLimited } from '../http/errors';
import type { RateLimiter } from '../http/rate-limit';
import { WholeNumber } from '../http/strict-body';

/**
 * `rate_limit_per_minute` in a body: a key's own requests a minute, or null for none. A number
 * sent as a string is refused like any other wrong type (strictBody).
 */
export const KeyRateLimitField = t.Union([WholeNumber({ minimum: 1, maximum: MAX_KEY_RATE_LIMIT }), t.Null()], {
  error: `must be an integer from 1 to ${MAX_KEY_RATE_LIMIT}, or null for no limit of its own`,
});

/** The key a request authenticated with: which kind, its id (an app's id for an SDK key) and its own limit. */
export interface LimitedKey {
  kind: 'api' | 'sdk';
  id: string;
  rateLimitPerMinute: number | null;
}

export interface KeyRateLimitDeps {
  rateLimiter: RateLimiter;
  config: Pick<Config, 'rateLimit' | 'keyRateLimit'>;
}

/**
 * Counts a request against its key's budget, once the key is known live (a revoked key never
 * gets here: it is 401 first), in the same limiter as the per-IP limits, so the count is
 * shared through Redis and falls back to this node alike. Throws the spec's 429 once spent.
 */
export async function chargeKey({ rateLimiter, config }: KeyRateLimitDeps, key: LimitedKey): Promise<void> {
  if (!config.rateLimit) return;
  const perMinute = key.rateLimitPerMinute ?? config.keyRateLimit;
  if (perMinute === null) return;
  const decision = await rateLimiter.hit(`key:${key.kind}:${key.id}`, perMinute);
  if (!decision.allowed) throw rateLimited(decision.retryAfter);
}
