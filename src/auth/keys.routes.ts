import { Elysia } from 'elysia';
import { notFound } from '../http/errors';
import { issueApiKey, listApiKeyPage, revokeApiKey } from './api-keys';
import { recordAudit } from './audit';
import { authPlugin, type AuthDeps } from './auth.plugin';
import { documented } from '../http/documented';
import { CreatedKeyBody, CreateKeyBody, KeyListBody, KeyParams, KeyRevokedBody, ListKeysQuery } from './auth.model';

/** The settings screen's API keys: session only, and the full key is shown once, at creation. */
export function keysRoutes(deps: AuthDeps) {
  const { db } = deps;
  return new Elysia({ name: 'dashboard-keys' })
    .use(authPlugin(deps))
    .post(
      '/api/dashboard/keys',
      async ({ body, session, set }) => {
        const key = await db.transaction(async (tx) => {
          const issued = await issueApiKey(tx, { orgId: session.orgId, name: body.name, createdBy: session.userId });
          await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'create', entity: 'api_key', entityId: issued.id });
          return issued;
        });
        set.status = 201;
        return { id: key.id, name: key.name, prefix: key.prefix, api_key: key.api_key };
      },
      { session: true, body: CreateKeyBody, detail: { summary: 'Create an API key', ...documented({ 201: ['the key, in full this once', CreatedKeyBody] }) } },
    )
    .get('/api/dashboard/keys', ({ query, session }) => listApiKeyPage(db, session.orgId, query), {
      session: true,
      query: ListKeysQuery,
      detail: { summary: 'List API keys', ...documented({ 200: ['a page of the keys by prefix, newest first (1000 unless `limit` says otherwise)', KeyListBody] }) },
    })
    .delete(
      '/api/dashboard/keys/:id',
      async ({ params, session }) => {
        const revoked = await db.transaction(async (tx) => {
          const done = await revokeApiKey(tx, session.orgId, params.id);
          if (done) await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'revoke', entity: 'api_key', entityId: params.id });
          return done;
        });
        if (!revoked) throw notFound('key not found');
        // Other nodes' caches need no word: conversion writes re-check the key (api-key-cache.ts).
        deps.apiKeyCache.forget(params.id);
        return { ok: true, id: params.id };
      },
      { session: true, params: KeyParams, detail: { summary: 'Revoke an API key', ...documented({ 200: ['revoked', KeyRevokedBody], 404: ['key not found'] }) } },
    );
}
