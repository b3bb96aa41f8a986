import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import type { Config } from '../config';
import type { Clock } from '../shared/ids';
import { appleRootCertificates } from './apple-roots';
import { createAppleVerifier } from './apple-notifications';
import { receiveAppleNotification } from './apple-receiver';
import { createPlayApi } from './google-play';
import { receiveGoogleNotification } from './google-receiver';
import { pubsubPushCheck } from './pubsub-auth';
import { AppleNotificationBody, GoogleNotificationBody, ListSubscriptionsQuery } from './subscriptions.model';
import { listOrgSubscriptions } from './subscriptions.service';

type SubscriptionsServices = AuthDeps & {
  clock: Clock;
  config: Pick<Config, 'appleRootCerts' | 'googlePlayCredentials' | 'googlePlayApiUrl' | 'googlePubsub'>;
};

/**
 * The two store notification receivers (no API key: the store's signature, or the Pub/Sub push
 * checks, authenticate them; docs/subscriptions.md) and the subscriptions list (API key).
 */
export function subscriptionsRoutes(services: SubscriptionsServices) {
  const { db, config } = services;
  const verifier = createAppleVerifier(appleRootCertificates(config.appleRootCerts));
  const playApi = config.googlePlayCredentials ? createPlayApi({ credentialsPath: config.googlePlayCredentials, rootUrl: config.googlePlayApiUrl }) : undefined;
  const googleDeps = { db, clock: services.clock, pushCheck: pubsubPushCheck(config.googlePubsub), playApi };
  return new Elysia({ name: 'subscriptions-routes' })
    .use(authPlugin(services))
    .post('/api/subscriptions/apple', ({ body }) => receiveAppleNotification({ db, verifier }, body.signedPayload), { body: AppleNotificationBody })
    .post('/api/subscriptions/google', ({ body, request }) => receiveGoogleNotification(googleDeps, request, body), { body: GoogleNotificationBody })
    .get('/api/v1/subscriptions', async ({ query, principal }) => ({ data: await listOrgSubscriptions({ db }, principal.orgId, query.limit ?? 100) }), {
      apiKey: true,
      query: ListSubscriptionsQuery,
    });
}
