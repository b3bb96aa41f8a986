import { Elysia } from 'elysia';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import type { Config } from '../config/config';
import type { Clock } from '../shared/ids';
import { appleRootCertificates } from './apple-roots';
import { createAppleVerifier } from './apple-notifications';
import { receiveAppleNotification } from './apple-receiver';
import { createPlayApi } from './google-play';
import { receiveGoogleNotification } from './google-receiver';
import { pubsubPushCheck } from './pubsub-auth';
import { AppleNotificationBody, GoogleNotificationBody, ListSubscriptionsQuery } from './subscriptions.model';
import { listOrgSubscriptions } from './subscriptions.service';

/** For the OpenAPI document: the refusals beside the body check's 400 (a new object per route, as Elysia merges into it). */
const AMBIGUOUS_APP = { description: 'several apps match and none alone holds the purchase' };
const appleDetail = () => ({
  summary: 'App Store Server Notifications receiver',
  responses: { 400: { description: 'validation error, or an invalid signed payload (JWS)' }, 409: AMBIGUOUS_APP },
});
const googleDetail = () => ({
  summary: 'Google Play real-time developer notifications receiver (Pub/Sub push)',
  responses: {
    400: { description: 'validation error, a package name no app has, or a purchase token Google Play does not know' },
    401: { description: 'the configured Pub/Sub push checks fail' },
    409: AMBIGUOUS_APP,
  },
});

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
    .post('/api/subscriptions/apple', ({ body }) => receiveAppleNotification({ db, verifier }, body.signedPayload), { body: AppleNotificationBody, detail: appleDetail() })
    .post('/api/subscriptions/google', ({ body, request }) => receiveGoogleNotification(googleDeps, request, body), { body: GoogleNotificationBody, detail: googleDetail() })
    .get('/api/v1/subscriptions', ({ query, principal }) => listOrgSubscriptions({ db }, principal.orgId, query), {
      apiKey: true,
      query: ListSubscriptionsQuery,
      detail: { summary: 'List subscriptions', ...pageAnswer('a page of subscriptions, most recently changed first') },
    });
}
