import { t } from 'elysia';

const CUSTOMER_ID = { pattern: '^[0-9]{3}-?[0-9]{3}-?[0-9]{4}$', error: 'must be a 10-digit Google Ads customer id (dashes allowed)' };
/** Tokens travel in headers and form bodies: printable ASCII, no spaces, so none can split a header. */
const CREDENTIAL = (what: string) => t.String({ pattern: '^[\\x21-\\x7E]{1,1024}$', error: `must be the ${what}: 1 to 1024 printable characters, no spaces` });

/** PUT /api/dashboard/integrations/google-ads: the whole connection, replaced (docs/protect-sync.md). */
export const GoogleAdsConnectionBody = t.Object(
  {
    customer_id: t.String(CUSTOMER_ID),
    /** The manager (MCC) account the credentials sign in as, when it is not the customer itself. */
    login_customer_id: t.Optional(t.String(CUSTOMER_ID)),
    developer_token: CREDENTIAL('developer token'),
    client_id: CREDENTIAL('OAuth client id'),
    client_secret: CREDENTIAL('OAuth client secret'),
    refresh_token: CREDENTIAL('OAuth refresh token'),
  },
  { additionalProperties: false },
);
export type GoogleAdsConnectionBody = typeof GoogleAdsConnectionBody.static;

/** What the dashboard reads back: never a secret. One shape whether connected or not. */
export const IntegrationView = t.Object({
  provider: t.Literal('google_ads'),
  connected: t.Boolean(),
  customer_id: t.Union([t.String(), t.Null()]),
  login_customer_id: t.Union([t.String(), t.Null()]),
  updated_at: t.Union([t.String(), t.Null()]),
});
export type IntegrationView = typeof IntegrationView.static;

/** The sealed part of a connection, as stored in `ad_integrations.secrets`. */
export interface GoogleAdsSecrets {
  developer_token: string;
  client_id: string;
  client_secret: string;
  refresh_token: string;
}

/** A connection opened for use: ids without dashes, secrets in clear, in memory only. */
export interface GoogleAdsConnection {
  customerId: string;
  loginCustomerId: string | null;
  developerToken: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}
