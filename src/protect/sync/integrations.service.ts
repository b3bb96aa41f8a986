import { type Actor, recordAudit } from '../../auth/audit';
import type { Config } from '../../config/config';
import type { Db } from '../../db/db';
import { createSecretBox } from '../../shared/crypto/secret-box';
import type { GoogleAdsConnection, GoogleAdsConnectionBody, GoogleAdsSecrets, IntegrationView } from './integrations.model';
import { deleteIntegration, findIntegration, upsertIntegration, type IntegrationRow } from './integrations.repo';

export interface IntegrationsDeps {
  db: Db;
  config: Pick<Config, 'sessionSecret'>;
}

const PROVIDER = 'google_ads';
const DISCONNECTED: IntegrationView = { provider: PROVIDER, connected: false, customer_id: null, login_customer_id: null, updated_at: null };

/** The sealed secrets belong to one organization's row: sealed elsewhere, they do not open here. */
const sealContext = (orgId: string) => `ad_integrations:${orgId}:${PROVIDER}`;
const digits = (customerId: string) => customerId.replaceAll('-', '');

export function googleAdsView(row: IntegrationRow | null): IntegrationView {
  if (!row) return DISCONNECTED;
  return {
    provider: PROVIDER,
    connected: true,
    customer_id: row.settings.customer_id ?? null,
    login_customer_id: row.settings.login_customer_id ?? null,
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** PUT: seal the secrets, replace the connection and audit it (ids only) in one transaction. */
export async function connectGoogleAds(deps: IntegrationsDeps, actor: Actor, body: GoogleAdsConnectionBody): Promise<IntegrationView> {
  const settings = { customer_id: digits(body.customer_id), login_customer_id: body.login_customer_id ? digits(body.login_customer_id) : null };
  const secrets: GoogleAdsSecrets = {
    developer_token: body.developer_token,
    client_id: body.client_id,
    client_secret: body.client_secret,
    refresh_token: body.refresh_token,
  };
  const sealed = createSecretBox(deps.config.sessionSecret).seal(JSON.stringify(secrets), sealContext(actor.orgId));
  return deps.db.transaction(async (tx) => {
    const row = await upsertIntegration(tx, { orgId: actor.orgId, provider: PROVIDER, settings, secrets: sealed });
    await recordAudit(tx, actor, { action: 'update', entity: 'ad_integration', entityId: PROVIDER, detail: settings });
    return googleAdsView(row);
  });
}

export async function readGoogleAds(deps: IntegrationsDeps, orgId: string): Promise<IntegrationView> {
  return googleAdsView(await findIntegration(deps.db, orgId, PROVIDER));
}

/** DELETE: safe to repeat. What was pushed stays on the ad account and in ip_exclusions. */
export async function disconnectGoogleAds(deps: IntegrationsDeps, actor: Actor): Promise<IntegrationView> {
  await deps.db.transaction(async (tx) => {
    if (await deleteIntegration(tx, actor.orgId, PROVIDER)) await recordAudit(tx, actor, { action: 'delete', entity: 'ad_integration', entityId: PROVIDER });
  });
  return DISCONNECTED;
}

/** The connection with its secrets in clear, for one sync; throws SecretBoxError when they no longer open. */
export function openGoogleAds(config: Pick<Config, 'sessionSecret'>, orgId: string, row: IntegrationRow): GoogleAdsConnection {
  const secrets = JSON.parse(createSecretBox(config.sessionSecret).open(row.secrets, sealContext(orgId))) as GoogleAdsSecrets;
  return {
    customerId: row.settings.customer_id ?? '',
    loginCustomerId: row.settings.login_customer_id ?? null,
    developerToken: secrets.developer_token,
    clientId: secrets.client_id,
    clientSecret: secrets.client_secret,
    refreshToken: secrets.refresh_token,
  };
}
