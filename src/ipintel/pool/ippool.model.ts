import { t } from 'elysia';

/** Query of GET /api/dashboard/ippool/lookup; the service decides whether `ip` is an address. */
export const IpPoolLookupQuery = t.Object({ ip: t.String({ maxLength: 256 }) });
export type IpPoolLookupQuery = typeof IpPoolLookupQuery.static;

const nullableString = t.Union([t.String(), t.Null()]);
const IpTypeValue = t.Union([t.Literal('residential'), t.Literal('mobile'), t.Literal('datacenter'), t.Null()]);

/** docs/ip-intelligence.md, "GET /api/dashboard/ippool/lookup", says what each field means. */
export const IpPoolLookup = t.Object({
  ip: t.String(),
  pool: t.Object({
    type: IpTypeValue,
    asn: t.Union([t.Integer(), t.Null()]),
    as_org: nullableString,
    verified_bot: nullableString,
  }),
  geo: t.Object({ country: nullableString, region: nullableString, city: nullableString }),
  rate_limit_key: t.String(),
  exclusion: t.Object({ ip_block: t.String() }),
  intel: t.Object({
    clicks_24h: t.Integer(),
    invalid_clicks_24h: t.Integer(),
    last_seen: nullableString,
    risk_score: t.Union([t.Number(), t.Null()]),
  }),
});
export type IpPoolLookup = typeof IpPoolLookup.static;
