import { CursorQuery } from '../http/pagination';
import { t } from 'elysia';
import { WholeNumber } from '../http/strict-body';
import type { SkanFigures } from '../skan/skan.model';

export interface CampaignRow {
  id: string;
  org_id: string;
  app_id: string | null;
  name: string;
  external_id: string | null;
  status: string;
  skan_source_identifier: number | null;
  partner: string | null;
  created_at: Date;
}

// Printable text without leading or trailing blanks: these names are shown and matched as typed.
const TEXT = '^\\S(?:[^\\u0000-\\u001f\\u007f]*\\S)?$';

const Name = t.String({ minLength: 1, maxLength: 200, pattern: TEXT, error: 'must be 1 to 200 printable characters without leading or trailing blanks' });

/** The media source the campaign buys from (docs/reports.md, "Media source"); 64 as an impression's `partner`. */
export const PARTNER_LENGTH = 64;
const Partner = t.Union([t.String({ minLength: 1, maxLength: PARTNER_LENGTH, pattern: TEXT }), t.Null()], {
  error: `must be 1 to ${PARTNER_LENGTH} printable characters without leading or trailing blanks (google_ads, meta, tiktok ...), or null`,
  description: 'the media source (google_ads, meta, tiktok, or any name); reports group by it',
});

export const CreateCampaignBody = t.Object(
  {
    name: Name,
    // The ad platform's own campaign id (what `{campaignid}` expands to); matched by cost import and the pixel.
    external_id: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 128, pattern: TEXT }), t.Null()], {
        error: 'must be 1 to 128 printable characters without leading or trailing blanks, or null',
      }),
    ),
    app_id: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()], { error: 'must be an app id or null' })),
    // The ad network's SKAdNetwork campaign number; postbacks link to the campaign by it (docs/skan.md).
    skan_source_identifier: t.Optional(
      t.Union([WholeNumber({ minimum: 0, maximum: 9999 }), t.Null()], { error: 'must be an integer from 0 to 9999, or null' }),
    ),
    partner: t.Optional(Partner),
  },
  { additionalProperties: false },
);
export type CreateCampaignBody = typeof CreateCampaignBody.static;

/** PATCH /api/v1/campaigns/:id: absent fields stay; `partner: null` clears the media source. */
export const PatchCampaignBody = t.Object({ name: t.Optional(Name), partner: t.Optional(Partner) }, { additionalProperties: false });
export type PatchCampaignBody = typeof PatchCampaignBody.static;

export const ListCampaignsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
  cursor: CursorQuery,
});
export type ListCampaignsQuery = typeof ListCampaignsQuery.static;
export const DEFAULT_LIST_LIMIT = 100;

export const CampaignParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

export interface CampaignResponse {
  id: string;
  name: string;
  external_id: string | null;
  app_id: string | null;
  status: string;
  skan_source_identifier: number | null;
  partner: string | null;
  created_at: string;
}

/** GET /api/v1/campaigns/:id: the campaign with what its SKAdNetwork postbacks add up to. */
export interface CampaignDetailResponse extends CampaignResponse {
  skan: SkanFigures;
}
