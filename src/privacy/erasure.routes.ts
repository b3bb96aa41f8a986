import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import type { Config } from '../config/config';
import { documented } from '../http/documented';
import { strictBody } from '../http/strict-body';
import { ErasureAcceptedBody, ErasureBody, ErasureParams, ErasureViewBody, ForgetBody } from './erasure.model';
import { erasureStatus, requestErasure, requestForget } from './erasure.service';

type ErasureServices = AuthDeps & { config: Pick<Config, 'sessionSecret'> };

/** Erasure of one person's data (docs/privacy.md): filed here, finished by the erasure runner. */
export function erasureRoutes(services: ErasureServices) {
  const deps = { db: services.db, secret: services.config.sessionSecret };
  return new Elysia({ name: 'privacy-erasure' })
    .use(authPlugin(services))
    .post(
      '/api/v1/privacy/erasure',
      async ({ body, principal, set }) => {
        const filed = await requestErasure(deps, principal, body);
        set.status = 202;
        return filed;
      },
      {
        apiKey: true,
        body: ErasureBody,
        transform: strictBody(ErasureBody),
        detail: {
          summary: "Erase a person's data: a device, advertising id, install, click, or an address over days",
          ...documented({ 202: ['filed (or the same pending request, for a repeat); processed in the background', ErasureAcceptedBody] }),
        },
      },
    )
    .get('/api/v1/privacy/erasure/:id', ({ params, principal }) => erasureStatus(deps, principal, params.id), {
      apiKey: true,
      params: ErasureParams,
      detail: { summary: 'The state of an erasure request, with rows erased per table', ...documented({ 200: ['the request', ErasureViewBody], 404: ['erasure request not found'] }) },
    })
    .post(
      '/api/sdk/v1/forget',
      async ({ body, sdkApp, set }) => {
        const filed = await requestForget(deps, sdkApp, body.device_id);
        set.status = 202;
        return filed;
      },
      {
        sdkKey: true,
        body: ForgetBody,
        detail: { summary: "Erase this device's data in the SDK key's app", ...documented({ 202: ['filed (or the same pending request)', ErasureAcceptedBody] }) },
      },
    );
}
