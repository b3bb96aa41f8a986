import { t } from 'elysia';
import { IpPoolLookup } from '../ipintel/pool/ippool.model';

/** RouteTestRequest of the interface: the facts a visit would carry, each optional but the slug. */
export const RouteTestBody = t.Object(
  {
    slug: t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]{1,64}$', error: 'must be a link slug' }),
    country: t.Optional(t.String({ pattern: '^[A-Za-z]{2}$', error: 'must be an ISO 3166 alpha-2 country code' })),
    region: t.Optional(t.String({ minLength: 1, maxLength: 128, error: 'must be a region name of at most 128 characters' })),
    city: t.Optional(t.String({ minLength: 1, maxLength: 128, error: 'must be a city name of at most 128 characters' })),
    os: t.Optional(t.Union([t.Literal('ios'), t.Literal('android'), t.Literal('desktop')], { error: "must be 'ios', 'android' or 'desktop'" })),
    ua: t.Optional(t.String({ maxLength: 2048, error: 'must be a user agent of at most 2048 characters' })),
    ip: t.Optional(t.String({ maxLength: 64, error: 'must be an IPv4 or IPv6 address' })),
    language: t.Optional(t.String({ maxLength: 256, error: 'must be an Accept-Language value of at most 256 characters' })),
    timezone: t.Optional(t.String({ maxLength: 64, error: 'must be an IANA time zone' })),
    hour: t.Optional(t.Integer({ minimum: 0, maximum: 23, error: 'must be an integer from 0 to 23' })),
    params: t.Optional(t.String({ maxLength: 4096, error: 'must be a query string of at most 4096 characters' })),
    inApp: t.Optional(t.Union([t.Literal('true'), t.Literal('false')], { error: "must be 'true' or 'false'" })),
  },
  { additionalProperties: false },
);
export type RouteTestBody = typeof RouteTestBody.static;

const orNull = <S extends Parameters<typeof t.Nullable>[0]>(schema: S) => t.Nullable(schema);

/** The route test's answer, as a model for the OpenAPI document (docs/smart-link-serving.md, "Route test"). */
export const RouteTestResultBody = t.Object({
  context: t.Object({
    country: orNull(t.String()),
    region: orNull(t.String()),
    city: orNull(t.String()),
    os: orNull(t.String()),
    ip_type: orNull(t.String()),
    in_app: orNull(t.Boolean()),
    language: t.Array(t.String()),
    timezone: t.String(),
    hour: t.Integer({ minimum: 0, maximum: 23 }),
    weekday: t.String(),
    params: t.Record(t.String(), t.String(), { description: 'the first value of each query parameter, decoded' }),
  }, { description: 'the facts the rules saw' }),
  decision: t.Object({
    rule_index: orNull(t.Integer()),
    rule_name: orNull(t.String()),
    action: t.String(),
    variant_index: orNull(t.Integer()),
    page: orNull(t.String()),
    status: t.Integer(),
    location: orNull(t.String()),
  }, { description: 'what /l would answer' }),
  pool: t.Union([IpPoolLookup, t.Null()], { description: 'the IP pool lookup of `ip` (GET /api/dashboard/ippool/lookup), null without one' }),
});
