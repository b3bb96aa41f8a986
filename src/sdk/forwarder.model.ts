import { t } from 'elysia';

export const ForwarderParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** PUT /api/v1/apps/{id}/forwarder: where installs with an advertising id are sent (docs/sdk.md). */
export const ForwarderBody = t.Object(
  {
    url: t.String({ minLength: 1, maxLength: 2048 }),
    enabled: t.Optional(t.Boolean()),
    /** Sent with every forward, e.g. the ad platform's access token. */
    headers: t.Optional(
      t.Record(t.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), t.String({ maxLength: 2048, pattern: '^[\\x20-\\x7E]*$' }), { maxProperties: 20 }),
    ),
  },
  { additionalProperties: false },
);
export type ForwarderBody = typeof ForwarderBody.static;
