import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import type { PostbackWorker } from '../postbacks/postbacks.worker';
import type { Clock } from '../shared/ids';
import type { WriteBurst } from '../shared/write-burst';
import { documented } from '../http/documented';
import { ConversionInput, ConversionListBody, ConversionResultBody, ListConversionsQuery, PostbackQuery } from './conversions.model';
import { createClickConversionWriter } from './conversions.writer';
import { checkConversionInput, listOrgConversions, parsePostbackQuery, recordConversion, type ConversionsDeps } from './conversions.service';

/** A new object per route: Elysia merges the auth option's detail into it. */
const postbackDetail = () => ({ summary: 'Record a conversion from a server postback (query parameters)', ...documented({ 200: ['stored, matched or unattributed', ConversionResultBody] }) });

/** Conversions in by server postback (query) or JSON, and the list of what was stored. */
export function conversionsRoutes(services: AuthDeps & { clock: Clock; writeBurst: WriteBurst; postbackWorker: Pick<PostbackWorker, 'wake'> }) {
  const deps: ConversionsDeps = {
    db: services.db,
    clock: services.clock,
    writer: createClickConversionWriter(services.db, { writeBurst: services.writeBurst }),
    onDeliveriesQueued: () => services.postbackWorker.wake(),
  };
  const postback = async ({ query, principal }: { query: PostbackQuery; principal: { keyId: string; orgId: string } }) =>
    recordConversion(deps, principal, parsePostbackQuery(query), 'postback');
  return new Elysia({ name: 'conversions-routes' })
    .use(authPlugin(services))
    .get('/postback', postback, { writeKey: 'header-or-query', query: PostbackQuery, detail: postbackDetail() })
    .post('/postback', postback, { writeKey: 'header-or-query', query: PostbackQuery, detail: postbackDetail() })
    .post(
      '/api/v1/conversions',
      async ({ body, principal, set }) => {
        const result = await recordConversion(deps, principal, body, 'api');
        set.status = 201;
        return result;
      },
      // writeKey: every conversion write re-checks the key (conversions.repo.ts).
      { writeKey: true, body: ConversionInput, transform: checkConversionInput, detail: { summary: 'Record a conversion', ...documented({ 201: ['created or updated (idempotent on order_id plus event)', ConversionResultBody] }) } },
    )
    .get('/api/v1/conversions', async ({ query, principal }) => listOrgConversions(deps, principal.orgId, query), {
      apiKey: true,
      query: ListConversionsQuery,
      detail: { summary: 'List conversions, most recent first', ...documented({ 200: ['the conversions', ConversionListBody] }) },
    });
}
