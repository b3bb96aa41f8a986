import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { strictBody } from '../../http/strict-body';
import { GoogleAdsConnectionBody, IntegrationView } from './integrations.model';
import { connectGoogleAds, disconnectGoogleAds, readGoogleAds, type IntegrationsDeps } from './integrations.service';

const PATH = '/api/dashboard/integrations/google-ads';

/** The Google Ads connection of the IP-exclusion sync: session only; secrets go in, never out. */
export function integrationsRoutes(deps: AuthDeps & IntegrationsDeps) {
  const actor = (session: { orgId: string; userId: string }) => ({ orgId: session.orgId, userId: session.userId });
  return new Elysia({ name: 'protect-integrations' })
    .use(authPlugin(deps))
    .put(PATH, ({ body, session }) => connectGoogleAds(deps, actor(session), body), {
      session: true,
      body: GoogleAdsConnectionBody,
      transform: strictBody(GoogleAdsConnectionBody),
      response: { 200: IntegrationView },
      detail: { summary: 'Connect Google Ads for the IP-exclusion sync' },
    })
    .get(PATH, ({ session }) => readGoogleAds(deps, session.orgId), { session: true, response: { 200: IntegrationView }, detail: { summary: 'The Google Ads connection, without its secrets' } })
    .delete(PATH, ({ session }) => disconnectGoogleAds(deps, actor(session)), { session: true, response: { 200: IntegrationView }, detail: { summary: 'Disconnect Google Ads' } });
}
