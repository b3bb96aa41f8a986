import { t } from 'elysia';
import { WholeNumber } from '../http/strict-body';

/** An organization's protect settings (GET/PUT /api/dashboard/protect/settings). */
export const ProtectSettings = t.Object(
  {
    /** A click whose risk score reaches this is invalid: exported and synced as an exclusion. */
    invalid_threshold: WholeNumber({ minimum: 1, maximum: 100, error: 'must be an integer from 1 to 100' }),
  },
  { additionalProperties: false },
);
export type ProtectSettings = typeof ProtectSettings.static;
