import { FormatRegistry } from '@sinclair/typebox';
import { t } from 'elysia';
import { parseAddress } from '../ipintel/ip-intel';
import { Timestamp } from '../shared/timestamp';
import { COUNTRY_CODES } from '../tracking/smartlinks/rules/countries';
import { IMPRESSION_LIMITS } from '../tracking/tracking.model';

FormatRegistry.Set('svc-ip-address', (value) => parseAddress(value) !== null);
FormatRegistry.Set('svc-country', (value) => COUNTRY_CODES.has(value.toUpperCase()));

export const MAX_IMPRESSIONS = 5000;

const Text = (maxLength: number) => t.Optional(t.String({ minLength: 1, maxLength }));

/** The spec's server-to-server Impression (docs/growth-imports.md). */
export const Impression = t.Object(
  {
    campaign_id: Text(64),
    campaign_external_id: Text(256),
    app_id: Text(64),
    partner: Text(IMPRESSION_LIMITS.partnerLength),
    creative_id: Text(IMPRESSION_LIMITS.valueLength),
    placement: Text(IMPRESSION_LIMITS.valueLength),
    ip: t.String({ format: 'svc-ip-address', maxLength: 64, error: 'must be an IPv4 or IPv6 address, such as 203.0.113.7 or 2001:db8::7' }),
    user_agent: Text(2048),
    os: Text(64),
    device_type: Text(64),
    country: t.Optional(t.String({ format: 'svc-country', maxLength: 2, error: 'must be an ISO 3166-1 alpha-2 country code such as US or DE' })),
    ts: t.Optional(Timestamp()),
  },
  { additionalProperties: false },
);
export type Impression = typeof Impression.static;

export const ImpressionsBody = t.Object(
  { impressions: t.Array(Impression, { minItems: 1, maxItems: MAX_IMPRESSIONS }) },
  { additionalProperties: false },
);
export type ImpressionsBody = typeof ImpressionsBody.static;

export interface ImpressionsResult {
  accepted: number;
}
