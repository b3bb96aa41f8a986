import { t } from 'elysia';
import { CursorQuery } from '../http/pagination';
import { Amount, WholeNumber } from '../http/strict-body';
import { Timestamp } from '../shared/timestamp';

export const MAX_AIRINGS = 5000;
/** Minutes after aired_at that count as the spot's window when the airing names none. */
export const DEFAULT_WINDOW_MIN = 10;

const Text = (maxLength: number) => t.Optional(t.String({ minLength: 1, maxLength }));

/** The spec's TvAiring (docs/growth-imports.md). */
export const TvAiring = t.Object(
  {
    network: t.String({ minLength: 1, maxLength: 128 }),
    program: Text(256),
    region: t.Optional(t.String({ minLength: 1, maxLength: 128, pattern: '\\S', error: 'must be a region name of 1 to 128 characters' })),
    aired_at: Timestamp(),
    spot_length_sec: t.Optional(WholeNumber({ minimum: 1, maximum: 86_400, error: 'must be a whole number of seconds from 1 to 86400' })),
    cost: t.Optional(Amount()),
    campaign_external_id: Text(256),
    campaign_id: Text(64),
    window_min: t.Optional(WholeNumber({ minimum: 2, maximum: 60, error: 'must be a whole number of minutes from 2 to 60' })),
  },
  { additionalProperties: false },
);
export type TvAiring = typeof TvAiring.static;

export const TvAiringsBody = t.Object({ airings: t.Array(TvAiring, { minItems: 1, maxItems: MAX_AIRINGS }) }, { additionalProperties: false });
export type TvAiringsBody = typeof TvAiringsBody.static;

export const DEFAULT_AIRINGS_LIMIT = 100;
export const TvAiringsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_AIRINGS_LIMIT })),
  cursor: CursorQuery,
});
export type TvAiringsQuery = typeof TvAiringsQuery.static;

export interface TvAiringsResult {
  accepted: number;
  attributed_airings: number;
}

/** One airing as GET /api/v1/tv-airings lists it. */
export interface TvAiringView {
  id: string;
  network: string;
  program: string | null;
  region: string | null;
  aired_at: string;
  window_min: number;
  spot_length_sec: number | null;
  cost: number | null;
  campaign_id: string | null;
  baseline_per_min: number;
  window_count: number;
  lift: number;
  attributed: boolean;
  /** cost / lift for an attributed airing with a cost and a lift above 0, else null. */
  cost_per_lift: number | null;
}
