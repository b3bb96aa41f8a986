import { t } from 'elysia';

export interface CampaignRow {
  id: string;
  org_id: string;
  app_id: string | null;
  name: string;
  external_id: string | null;
  status: string;
  created_at: Date;
}

// Printable text without leading or trailing blanks: these names are shown and matched as typed.
const TEXT = '^\\S(?:[^\\u0000-\\u001f\\u007f]*\\S)?$';

export const CreateCampaignBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200, pattern: TEXT, error: 'must be 1 to 200 printable characters without leading or trailing blanks' }),
    // The ad platform's own campaign id (what `{campaignid}` expands to); matched by cost import and the pixel.
    external_id: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 128, pattern: TEXT }), t.Null()], {
        error: 'must be 1 to 128 printable characters without leading or trailing blanks, or null',
      }),
    ),
    app_id: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()], { error: 'must be an app id or null' })),
  },
  { additionalProperties: false },
);
export type CreateCampaignBody = typeof CreateCampaignBody.static;

export const ListCampaignsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
});
export const DEFAULT_LIST_LIMIT = 100;

export interface CampaignResponse {
  id: string;
  name: string;
  external_id: string | null;
  app_id: string | null;
  status: string;
  created_at: string;
}
