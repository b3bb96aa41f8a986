/**
 * The smart-link rule set, version 1, in its stored (normalised) form: what parseRules returns,
 * the links API stores and answers, and compileRules evaluates. Reference: docs/smart-links.md.
 */
import { type Static, Type as T } from '@sinclair/typebox';

export const RULES_VERSION = 1;
export const MAX_RULES = 100;
export const MAX_RULE_NAME_LENGTH = 64;
export const MAX_VARIANTS = 10;
export const MAX_VARIANT_WEIGHT = 1_000_000;
export const MAX_DEEP_LINK_LENGTH = 2048;
/** The zone of `hours` without `tz`, and of `weekdays` without `hours`. */
export const DEFAULT_TIME_ZONE = 'UTC';
export const BLOCK_STATUSES = [403, 404, 410] as const;
export type BlockStatus = (typeof BLOCK_STATUSES)[number];

export const OPERATING_SYSTEMS = ['ios', 'android', 'desktop'] as const;
export type OperatingSystem = (typeof OPERATING_SYSTEMS)[number];
export const IP_TYPES = ['residential', 'mobile', 'datacenter'] as const;
export type IpType = (typeof IP_TYPES)[number];
/** In calendar order from Monday, the order of zonedHourAndWeekday's weekday index. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const literals = <V extends string | number>(values: readonly V[]) => T.Union(values.map((v) => T.Literal(v)));

export const HoursSchema = T.Object(
  { from: T.Integer({ minimum: 0, maximum: 23 }), to: T.Integer({ minimum: 0, maximum: 23 }), tz: T.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export type Hours = Static<typeof HoursSchema>;

export const ConditionsSchema = T.Object(
  {
    country: T.Optional(T.Array(T.String({ pattern: '^[A-Z]{2}$' }), { minItems: 1 })),
    region: T.Optional(T.Array(T.String({ minLength: 1 }), { minItems: 1 })),
    city: T.Optional(T.Array(T.String({ minLength: 1 }), { minItems: 1 })),
    os: T.Optional(T.Array(literals(OPERATING_SYSTEMS), { minItems: 1 })),
    ip_type: T.Optional(T.Array(literals(IP_TYPES), { minItems: 1 })),
    language: T.Optional(T.Array(T.String({ pattern: '^[a-z]{2,3}$' }), { minItems: 1 })),
    in_app: T.Optional(T.Boolean()),
    params: T.Optional(T.Record(T.String({ minLength: 1, maxLength: 64 }), T.Array(T.String(), { minItems: 1 }))),
    hours: T.Optional(HoursSchema),
    weekdays: T.Optional(T.Array(literals(WEEKDAYS), { minItems: 1 })),
  },
  { additionalProperties: false },
);
export type Conditions = Static<typeof ConditionsSchema>;

export const VariantSchema = T.Object(
  { url: T.String({ minLength: 1 }), weight: T.Integer({ minimum: 1, maximum: MAX_VARIANT_WEIGHT }) },
  { additionalProperties: false },
);
export type Variant = Static<typeof VariantSchema>;

export const RuleActionSchema = T.Union([
  T.Object({ url: T.String() }, { additionalProperties: false }),
  T.Object({ store: T.String() }, { additionalProperties: false }),
  T.Object({ deep_link: T.String(), fallback: T.Optional(T.String()) }, { additionalProperties: false }),
  T.Object({ variants: T.Array(VariantSchema, { minItems: 1, maxItems: MAX_VARIANTS }) }, { additionalProperties: false }),
  T.Object({ block: literals(BLOCK_STATUSES) }, { additionalProperties: false }),
]);
export type RuleAction = Static<typeof RuleActionSchema>;
export type ActionKind = 'url' | 'store' | 'deep_link' | 'variants' | 'block';

export const RuleSchema = T.Object(
  { name: T.Optional(T.String({ minLength: 1, maxLength: MAX_RULE_NAME_LENGTH })), if: ConditionsSchema, then: RuleActionSchema },
  { additionalProperties: false },
);
export type Rule = Static<typeof RuleSchema>;

/** The stored form: a bare array given to the API is stored as `{version: 1, rules: [...]}`. */
export const RuleSetSchema = T.Object(
  {
    version: T.Literal(RULES_VERSION),
    rules: T.Array(RuleSchema, { maxItems: MAX_RULES }),
    fallback: T.Optional(T.Object({ url: T.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type RuleSet = Static<typeof RuleSetSchema>;

export function actionKind(action: RuleAction): ActionKind {
  if ('url' in action) return 'url';
  if ('store' in action) return 'store';
  if ('deep_link' in action) return 'deep_link';
  if ('variants' in action) return 'variants';
  return 'block';
}
