/**
 * What authenticates a Pub/Sub push (docs/subscriptions.md, "Authenticating Google's pushes"):
 * the push URL's `?token=` against GOOGLE_PUBSUB_TOKEN, and Google's OIDC token in
 * `Authorization` for GOOGLE_PUBSUB_AUDIENCE. Each configured check must pass.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { constantTimeEqual } from '../auth/secrets';
import type { GooglePubsubConfig } from '../config';

const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];

export type PushCheck = (request: Request) => Promise<boolean>;

function bearer(request: Request): string | undefined {
  return request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
}

export function pubsubPushCheck(config: GooglePubsubConfig): PushCheck {
  const { token, audience, email } = config;
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
