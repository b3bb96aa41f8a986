import { Elysia } from 'elysia';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { strictBody } from '../http/strict-body';
import { CampaignParams, CreateCampaignBody, ListCampaignsQuery, PatchCampaignBody } from './campaigns.model';
import { createCampaign, getCampaign, listCampaigns, patchCampaign } from './campaigns.service';

/** Campaigns management API (API key). */
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
      { apiKey: true, body: CreateCampaignBody, transform: strictBody(CreateCampaignBody), detail: { summary: 'Create a campaign' } },
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
      detail: { summary: "Change a campaign's name or media source" },
    });
}
