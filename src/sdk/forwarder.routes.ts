import { Elysia } from 'elysia';
import type { Config } from '../config/config';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { notFound } from '../http/errors';
import { strictBody } from '../http/strict-body';
import { findForwarder } from './forwarder.repo';
import { ForwarderBody, ForwarderParams } from './forwarder.model';
import { configureForwarder, forwarderView } from './forwarder.service';

/** An app's ad-platform forwarder: set with PUT (full replacement, safe to repeat), read with GET. */
export function forwarderRoutes(deps: AuthDeps & { config: Pick<Config, 'sessionSecret' | 'postbackAllowPrivate'> }) {
  const { db, config } = deps;
  return new Elysia({ name: 'sdk-forwarder' })
    .use(authPlugin(deps))
    .put(
      '/api/v1/apps/:id/forwarder',
      ({ params, body, principal }) =>
        configureForwarder(
          { db, config },
          { orgId: principal.orgId, apiKeyId: principal.keyId, appId: params.id, url: body.url, enabled: body.enabled ?? true, headers: body.headers ?? {} },
        ),
      { apiKey: true, params: ForwarderParams, body: ForwarderBody, transform: strictBody(ForwarderBody), detail: { summary: "Set an app's install forwarder (full replacement, safe to repeat)" } },
    )
    .get(
      '/api/v1/apps/:id/forwarder',
      async ({ params, principal }) => {
        const row = await findForwarder(db, principal.orgId, params.id);
        if (!row) throw notFound('forwarder not found');
        return forwarderView(row);
      },
      { apiKey: true, params: ForwarderParams, detail: { summary: "An app's install forwarder" } },
    );
}
