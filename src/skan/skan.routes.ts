import { Elysia } from 'elysia';
import { pageAnswer } from '../http/pagination';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import type { Config } from '../config/config';
import { skanKeyObject } from '../config/skan-key';
import { ListSkanPostbacksQuery, SkanPostbackBody, SkanPostbackQuery } from './skan.model';
import { checkPostbackRequest, listSkanPostbacks, receivePostback, type SkanDeps } from './skan.service';

/**
 * SKAdNetwork postbacks: Apple's devices post them with no credential (the signature is the
 * security), and an API key lists the organization's.
 */
export function skanRoutes(services: AuthDeps & { config: Pick<Config, 'skanPublicKey' | 'skanVerify'> }) {
  const deps: SkanDeps = { db: services.db, publicKey: skanKeyObject(services.config.skanPublicKey), verify: services.config.skanVerify };
  return new Elysia({ name: 'skan' })
    .use(authPlugin(services))
    .post('/api/skan/postback', ({ query, body }) => receivePostback(deps, query.org!, body), {
      // JSON whatever the Content-Type says: devices and relays are not all careful with it.
      parse: 'json',
      query: SkanPostbackQuery,
      body: SkanPostbackBody,
      transform: checkPostbackRequest,
      detail: { summary: 'Receive a SKAdNetwork postback', responses: { 400: { description: 'org missing, an invalid body, or a bad signature when verification is on' } } },
    })
    .get('/api/v1/skan-postbacks', ({ query, principal }) => listSkanPostbacks(deps, principal.orgId, query), {
      apiKey: true,
      query: ListSkanPostbacksQuery,
      detail: { summary: 'List received SKAdNetwork postbacks', ...pageAnswer('a page of postbacks, newest first') },
    });
}
