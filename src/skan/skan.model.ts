import { t } from 'elysia';
import { CursorQuery } from '../http/pagination';
import { WholeNumber } from '../http/strict-body';

/** The postback versions whose signed field lists are known (skan-signature.ts). */
export const SKAN_VERSIONS = ['2.2', '3.0', '4.0'] as const;
export type SkanVersion = (typeof SKAN_VERSIONS)[number];

export const COARSE_VALUES = ['low', 'medium', 'high'] as const;

// One token of printable text. U+2063 joins the signed fields, so no value may carry it.
const TOKEN = '[^\\s\\u0000-\\u001f\\u007f\\u2063]';
const Token = (maxLength: number, error: string) => t.String({ pattern: `^${TOKEN}{1,${maxLength}}$`, error });
/** App Store ids: Apple sends integers; digits in a string are accepted and signed as they are. */
const AppStoreId = t.Union([WholeNumber({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), t.String({ pattern: '^[0-9]{1,16}$' })], {
  error: 'must be an App Store id (digits)',
});
const CampaignNumber = (error: string, digits: string) =>
  t.Union([WholeNumber({ minimum: 0, maximum: 9999 }), t.String({ pattern: `^[0-9]{${digits}}$` })], { error });

/**
 * The spec's SkanPostback, as Apple sends it (hyphenated keys). Fields another version does not
 * sign are kept in `raw` and not decoded; unknown keys may be scalars only, so a postback stays small.
 */
export const SkanPostbackBody = t.Object(
  {
    version: t.String({ maxLength: 16, error: `must be one of ${SKAN_VERSIONS.join(', ')}` }),
    'ad-network-id': Token(255, 'must be 1 to 255 printable characters without blanks'),
    'transaction-id': Token(128, 'must be 1 to 128 printable characters without blanks'),
    'app-id': t.Optional(AppStoreId),
    'campaign-id': t.Optional(CampaignNumber('must be an integer from 0 to 9999', '1,4')),
    'source-identifier': t.Optional(CampaignNumber('must be 2 to 4 digits', '2,4')),
    'source-app-id': t.Optional(AppStoreId),
    // Never only digits: in the 4.0 signature it stands where source-app-id would.
    'source-domain': t.Optional(t.String({ pattern: `^(?=.*[^0-9])${TOKEN}{1,253}$`, error: 'must be a domain name' })),
    'conversion-value': t.Optional(WholeNumber({ minimum: 0, maximum: 63, error: 'must be an integer from 0 to 63' })),
    'coarse-conversion-value': t.Optional(t.Union(COARSE_VALUES.map((v) => t.Literal(v)), { error: `must be one of ${COARSE_VALUES.join(', ')}` })),
    'fidelity-type': t.Optional(WholeNumber({ minimum: 0, maximum: 1, error: 'must be 0 or 1' })),
    'did-win': t.Optional(t.Boolean({ error: 'must be true or false' })),
    redownload: t.Optional(t.Boolean({ error: 'must be true or false' })),
    'postback-sequence-index': t.Optional(WholeNumber({ minimum: 0, maximum: 2, error: 'must be 0, 1 or 2' })),
    'attribution-signature': t.Optional(t.String({ pattern: '^[A-Za-z0-9+/]{8,400}={0,2}$', error: 'must be a base64 signature' })),
  },
  {
    additionalProperties: t.Union([t.String({ maxLength: 1024 }), t.Number(), t.Boolean(), t.Null()], {
      error: 'an unknown field must be a string of up to 1024 characters, a number, a boolean or null',
    }),
    maxProperties: 40,
  },
);
export type SkanPostbackBody = typeof SkanPostbackBody.static;

/** `org` is checked with the body (skan.service.ts), so one 400 names everything wrong. */
export const SkanPostbackQuery = t.Object({ org: t.Optional(t.String({ maxLength: 1024 })) });
export const ORG_ID_PATTERN = /^[0-9A-Za-z_-]{1,64}$/;

export const ListSkanPostbacksQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
  cursor: CursorQuery,
});
export type ListSkanPostbacksQuery = typeof ListSkanPostbacksQuery.static;
export const DEFAULT_LIST_LIMIT = 100;

/** A postback as decoded for storage (sql/0096_skan_postbacks.sql), before it is linked. */
export interface DecodedPostback {
  transactionId: string;
  version: SkanVersion;
  adNetworkId: string;
  appStoreId: string | null;
  sourceIdentifier: string | null;
  sourceAppId: string | null;
  sourceDomain: string | null;
  conversionValue: number | null;
  coarseConversionValue: string | null;
  postbackSequenceIndex: number | null;
  fidelityType: number | null;
  didWin: boolean | null;
  redownload: boolean | null;
}

export interface SkanPostbackRow {
  id: string;
  org_id: string;
  app_id: string | null;
  campaign_id: string | null;
  transaction_id: string;
  version: string;
  ad_network_id: string;
  source_identifier: string | null;
  source_app_id: string | null;
  source_domain: string | null;
  conversion_value: number | null;
  coarse_conversion_value: string | null;
  postback_sequence_index: number | null;
  fidelity_type: number | null;
  did_win: boolean | null;
  redownload: boolean | null;
  verified: boolean;
  created_at: Date;
}

/** A stored postback as GET /api/v1/skan-postbacks answers it. */
export type SkanPostbackResponse = Omit<SkanPostbackRow, 'org_id' | 'created_at'> & { created_at: string };

/**
 * What a campaign's postbacks add up to (docs/skan.md, "Counting"): installs are the winning
 * first postbacks; conversion values count winning postbacks of every window.
 */
export interface SkanFigures {
  postbacks: number;
  installs: number;
  redownloads: number;
  conversion_values: { count: number; sum: number };
  coarse_conversion_values: { low: number; medium: number; high: number };
}
