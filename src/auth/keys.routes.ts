import { Elysia } from 'elysia';
import { notFound } from '../http/errors';
import { strictBody } from '../http/strict-body';
import { issueApiKey, listApiKeyPage, revokeApiKey, setApiKeyRateLimit } from './api-keys';
import { recordAudit } from './audit';
import { authPlugin, type AuthDeps } from './auth.plugin';
import { documented } from '../http/documented';
import { CreatedKeyBody, CreateKeyBody, KeyBody, KeyListBody, KeyParams, KeyRevokedBody, ListKeysQuery, PatchKeyBody } from './auth.model';
import type { KeyChanges } from './key-changes';

/**
 * The settings screen's API keys: session only, and the full key is shown once, at creation.
 * A revocation or a new limit reaches every node's key cache at once (key-changes.ts).
 */
export function keysRoutes(deps: AuthDeps & { keyChanges: KeyChanges }) {
  const { db, keyChanges } = deps;
  return new Elysia({ name: 'dashboard-keys' })
    .use(authPlugin(deps))
    .post(
      '/api/dashboard/keys',
      async ({ body, session, set }) => {
        const key = await db.transaction(async (tx) => {
          const issued = await issueApiKey(tx, { orgId: session.orgId, name: body.name, createdBy: session.userId, rateLimitPerMinute: body.rate_limit_per_minute });
          await recordAudit(
            tx,
            { orgId: session.orgId, userId: session.userId },
            { action: 'create', entity: 'api_key', entityId: issued.id, detail: issued.rate_limit_per_minute === null ? undefined : { rate_limit_per_minute: issued.rate_limit_per_minute } },
          );
          return issued;
        });
        set.status = 201;
        return { id: key.id, name: key.name, prefix: key.prefix, api_key: key.api_key, rate_limit_per_minute: key.rate_limit_per_minute };
      },
      { session: true, body: CreateKeyBody, transform: strictBody(CreateKeyBody), detail: { summary: 'Create an API key', ...documented({ 201: ['the key, in full this once', CreatedKeyBody] }) } },
    )
    .get('/api/dashboard/keys', ({ query, session }) => listApiKeyPage(db, session.orgId, query), {
      session: true,
      query: ListKeysQuery,
      detail: { summary: 'List API keys', ...documented({ 200: ['a page of the keys by prefix, newest first (1000 unless `limit` says otherwise)', KeyListBody] }) },
    })
    .patch(
      '/api/dashboard/keys/:id',
      async ({ params, body, session }) => {
        const changed = await db.transaction(async (tx) => {
          const result = await setApiKeyRateLimit(tx, session.orgId, params.id, body.rate_limit_per_minute);
          if (!result) throw notFound('key not found');
          await recordAudit(
            tx,
            { orgId: session.orgId, userId: session.userId },
            { action: 'update', entity: 'api_key', entityId: params.id, detail: { rate_limit_per_minute: { from: result.before, to: result.key.rate_limit_per_minute } } },
          );
          return result.key;
        });
        await keyChanges.publish({ kind: 'api', keyId: params.id });
        return changed;
      },
      {
        session: true,
        params: KeyParams,
        body: PatchKeyBody,
        transform: strictBody(PatchKeyBody),
        detail: { summary: "Change an API key's rate limit", ...documented({ 200: ['the key as changed; the limit counts from the next request, on every node', KeyBody], 404: ['key not found'] }) },
      },
    )
    .delete(
      '/api/dashboard/keys/:id',
      async ({ params, session }) => {
        const revoked = await db.transaction(async (tx) => {
          const done = await revokeApiKey(tx, session.orgId, params.id);
          if (done) await recordAudit(tx, { orgId: session.orgId, userId: session.userId }, { action: 'revoke', entity: 'api_key', entityId: params.id });
          return done;
        });
        if (!revoked) throw notFound('key not found');
        // Conversion writes re-check the key in their statement anyway (api-key-cache.ts); every node's cache drops it besides.
        await keyChanges.publish({ kind: 'api', keyId: params.id });
        return { ok: true, id: params.id };
      },
      { session: true, params: KeyParams, detail: { summary: 'Revoke an API key', ...documented({ 200: ['revoked', KeyRevokedBody], 404: ['key not found'] }) } },
    );
}
