import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { documented } from '../http/documented';
import { strictBody } from '../http/strict-body';
import { ListFxRatesAnswer, ListFxRatesQuery, PutFxRatesAnswer, PutFxRatesBody } from './fx-rates.model';
import { listFxRates, putFxRates } from './fx-rates.service';

/** Exchange rates into the reporting currency (docs/reports.md, "Exchange rates"): API key under /api/v1, session for the dashboard. */
export function fxRatesRoutes(deps: AuthDeps) {
  const { db } = deps;
  const write = { summary: 'Upsert exchange rates on currency plus day', ...documented({ 200: ['rates upserted', PutFxRatesAnswer] }) };
  const read = { summary: 'List exchange rates, newest day first', ...documented({ 200: ['the rates', ListFxRatesAnswer] }) };
  return new Elysia({ name: 'fx-rates' })
    .use(authPlugin(deps))
    .put('/api/v1/fx-rates', ({ body, principal }) => putFxRates({ db }, { orgId: principal.orgId, apiKeyId: principal.keyId }, body.rates), {
      apiKey: true,
      body: PutFxRatesBody,
      transform: strictBody(PutFxRatesBody),
      detail: write,
    })
    .get('/api/v1/fx-rates', ({ query, principal }) => listFxRates({ db }, principal.orgId, query), {
      apiKey: true,
      query: ListFxRatesQuery,
      detail: read,
    })
    .put('/api/dashboard/fx-rates', ({ body, session }) => putFxRates({ db }, { orgId: session.orgId, userId: session.userId }, body.rates), {
      session: true,
      body: PutFxRatesBody,
      transform: strictBody(PutFxRatesBody),
      detail: { ...write, summary: `${write.summary} (as PUT /api/v1/fx-rates)` },
    })
    .get('/api/dashboard/fx-rates', ({ query, session }) => listFxRates({ db }, session.orgId, query), {
      session: true,
      query: ListFxRatesQuery,
      detail: { ...read, summary: `${read.summary} (as GET /api/v1/fx-rates)` },
    });
}
