import { Elysia } from 'elysia';
import { documented } from '../http/documented';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { strictBody } from '../http/strict-body';
import { CampaignParams, CreateCampaignBody, ListCampaignsQuery, PatchCampaignBody } from './campaigns.model';
import { createCampaign, getCampaign, listCampaigns, patchCampaign } from './campaigns.service';

/** Campaigns: the management API (API key) and its dashboard twin (session), one service, one set of bodies. */
export function campaignsRoutes(deps: AuthDeps) {
  const { db } = deps;
  return new Elysia({ name: 'campaigns' })
    .use(authPlugin(deps))
    .post(
      '/api/v1/campaigns',
      async ({ body, principal, set }) => {
        const campaign = await createCampaign({ db }, { orgId: principal.orgId, apiKeyId: principal.keyId }, body);
        set.status = 201;
        return campaign;
      },
      { apiKey: true, body: CreateCampaignBody, transform: strictBody(CreateCampaignBody), detail: { summary: 'Create a campaign', ...documented({ 201: ['the campaign'] }) } },
    )
    .get('/api/v1/campaigns', async ({ query, principal }) => listCampaigns({ db }, principal.orgId, query), {
      apiKey: true,
      query: ListCampaignsQuery,
      detail: { summary: 'List campaigns, newest first', ...pageAnswer('a page of campaigns, newest first') },
    })
    .get('/api/v1/campaigns/:id', ({ params, principal }) => getCampaign({ db }, principal.orgId, params.id), { apiKey: true, params: CampaignParams, detail: { summary: 'One campaign' } })
    .patch('/api/v1/campaigns/:id', ({ params, principal, body }) => patchCampaign({ db }, { orgId: principal.orgId, apiKeyId: principal.keyId }, params.id, body), {
      apiKey: true,
      params: CampaignParams,
      body: PatchCampaignBody,
      transform: strictBody(PatchCampaignBody),
      detail: { summary: "Change a campaign's name, media source, external id, app or status (archive)" },
    })
    .post(
      '/api/dashboard/campaigns',
      async ({ body, session, set }) => {
        const campaign = await createCampaign({ db }, { orgId: session.orgId, userId: session.userId }, body);
        set.status = 201;
        return campaign;
      },
      { session: true, body: CreateCampaignBody, transform: strictBody(CreateCampaignBody), detail: { summary: 'Create a campaign (as POST /api/v1/campaigns)', ...documented({ 201: ['the campaign'] }) } },
    )
    .get('/api/dashboard/campaigns', async ({ query, session }) => listCampaigns({ db }, session.orgId, query), {
      session: true,
      query: ListCampaignsQuery,
      detail: { summary: 'List campaigns, newest first (as GET /api/v1/campaigns)', ...pageAnswer('a page of campaigns, newest first') },
    })
    .patch('/api/dashboard/campaigns/:id', ({ params, session, body }) => patchCampaign({ db }, { orgId: session.orgId, userId: session.userId }, params.id, body), {
      session: true,
      params: CampaignParams,
      body: PatchCampaignBody,
      transform: strictBody(PatchCampaignBody),
      detail: { summary: 'Change a campaign (as PATCH /api/v1/campaigns/{id})' },
    });
}
