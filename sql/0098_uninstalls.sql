-- Uninstall tracking (docs/uninstalls.md). Silent pushes go to installs with a push token; a
-- provider's "no longer registered" answer marks the install uninstalled until the app is seen
-- again (an SDK install, open or push-token call clears the mark).
ALTER TABLE installs ADD COLUMN uninstalled_at timestamptz;
-- When a push to the install last got an answer that settles it for this interval (delivered, or
-- the token refused); outages leave it alone, so those installs are tried again next round.
ALTER TABLE installs ADD COLUMN uninstall_checked_at timestamptz;

-- The checker's queue per platform: never checked first, then the oldest check. A round walks it
-- once with a (key, id) cursor, so it is bounded and a stopped round resumes where checks stopped.
CREATE INDEX installs_uninstall_queue_idx
  ON installs (platform, (COALESCE(uninstall_checked_at, '-infinity'::timestamptz)), id)
  WHERE push_token IS NOT NULL AND uninstalled_at IS NULL;

-- Uninstalls per campaign, by organization and time of detection.
CREATE INDEX installs_uninstalled_idx ON installs (org_id, uninstalled_at) WHERE uninstalled_at IS NOT NULL;
