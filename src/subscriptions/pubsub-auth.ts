/**
 * What authenticates a Pub/Sub push (docs/subscriptions.md, "Authenticating Google's pushes"):
 * the push URL's `?token=` against GOOGLE_PUBSUB_TOKEN, and Google's OIDC token in
 * `Authorization` for GOOGLE_PUBSUB_AUDIENCE. Each configured check must pass; with neither
 * configured every push is refused, unless GOOGLE_PUBSUB_AUTH=off.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { constantTimeEqual } from '../shared/crypto/secrets';
import type { GooglePubsubConfig } from '../config/config';

const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];

export type PushCheck = (request: Request) => Promise<boolean>;

function bearer(request: Request): string | undefined {
  return request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
}

export function pubsubPushCheck(config: GooglePubsubConfig): PushCheck {
  const { token, audience, email } = config;
  if (!config.auth) return async () => true;
  if (token === undefined && audience === undefined) return async () => false;
  const keys = audience ? createRemoteJWKSet(new URL(config.jwksUrl)) : undefined;
  return async (request) => {
    if (token !== undefined) {
      const presented = new URL(request.url).searchParams.get('token') ?? '';
      if (!constantTimeEqual(presented, token)) return false;
    }
    if (keys && audience) {
      const jwt = bearer(request);
      if (!jwt) return false;
      try {
        const { payload } = await jwtVerify(jwt, keys, { issuer: GOOGLE_ISSUERS, audience, algorithms: ['RS256'] });
        if (email !== undefined && (payload.email !== email || payload.email_verified !== true)) return false;
      } catch {
        return false;
      }
    }
    return true;
  };
}

/** The boot log's line about the push checks: why pushes are refused, or that none is checked. */
export function pubsubBootNotice(config: GooglePubsubConfig): string | undefined {
  if (!config.auth) return 'GOOGLE_PUBSUB_AUTH=off: Google Play notifications are accepted unchecked; anyone can post one (unsafe, for test set-ups only)';
  if (config.token === undefined && config.audience === undefined) {
    return 'Google Play notifications (POST /api/subscriptions/google) answer 401: set GOOGLE_PUBSUB_TOKEN or GOOGLE_PUBSUB_AUDIENCE to accept them';
  }
  return undefined;
}
