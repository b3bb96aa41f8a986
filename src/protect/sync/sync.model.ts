import { t } from 'elysia';

/** One campaign the ad platform (or its id) failed; the other campaigns went on. */
export const SyncError = t.Object({ campaign_id: t.String(), external_id: t.String(), error: t.String() });
export type SyncError = typeof SyncError.static;

/** POST /api/protect/sync: counts summed over the campaigns synced (docs/protect-sync.md, "The answer"). */
export const SyncSummary = t.Object({
  campaigns: t.Integer({ minimum: 0 }),
  added: t.Integer({ minimum: 0 }),
  removed: t.Integer({ minimum: 0 }),
  kept: t.Integer({ minimum: 0 }),
  skipped: t.Integer({ minimum: 0 }),
  errors: t.Array(SyncError),
});
export type SyncSummary = typeof SyncSummary.static;
