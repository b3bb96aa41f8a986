import { t } from 'elysia';
import { WholeNumber } from '../../http/strict-body';

/**
 * The spec's BeaconRequest (interface.md, "Resources and their fields"), sent by a landing page.
 * Unknown fields are ignored, as in the SDK bodies, so a newer page script works with an older
 * server. A field left out is "not reported" and raises no signal.
 */

/** A body larger than this answers 413 (a beacon is a few hundred bytes). */
export const MAX_BEACON_BYTES = 8 * 1024;

/** The largest dwell_ms the `click_beacons.dwell_ms` integer column holds (about 24 days). */
const MAX_DWELL_MS = 2_147_483_647;

export const BeaconRequest = t.Object({
  click_id: t.String({ minLength: 4, maxLength: 64, error: 'is required: the svc_click_id of the landing URL, 4 to 64 characters' }),
  fingerprint: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  screen: t.Optional(t.String({ pattern: '^\\d{1,5}x\\d{1,5}$', error: 'must be WIDTHxHEIGHT in pixels, e.g. 390x844' })),
  timezone: t.Optional(t.String({ maxLength: 64 })),
  languages: t.Optional(t.String({ maxLength: 256 })),
  webdriver: t.Optional(t.Boolean()),
  touch: t.Optional(t.Boolean()),
  dwell_ms: t.Optional(WholeNumber({ minimum: 0, maximum: MAX_DWELL_MS, error: `must be an integer from 0 to ${MAX_DWELL_MS}` })),
  scroll: t.Optional(WholeNumber({ minimum: 0, maximum: 100, error: 'must be an integer from 0 to 100 (percent)' })),
});
export type BeaconRequest = typeof BeaconRequest.static;

export const BeaconResponse = t.Object({ ok: t.Boolean() });

/** What is stored for a click: every beacon sent for it, merged (beacon.repo.ts, "MERGE"). */
export interface StoredBeacon {
  click_id: string;
  org_id: string | null;
  fingerprint: string | null;
  screen: string | null;
  timezone: string | null;
  languages: string | null;
  webdriver: boolean | null;
  touch: boolean | null;
  dwell_ms: number | null;
  scroll: number | null;
  ip: string | null;
}
