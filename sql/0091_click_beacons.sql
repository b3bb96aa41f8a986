-- Landing-page beacons (docs/protect.md): one row per click, the merge of every beacon
-- sent for it. A beacon for a click still on its way to Postgres waits here with org_id and ip
-- NULL until the click lands (src/protect/beacon.pending.ts); such rows live 15 minutes at most.
CREATE TABLE click_beacons (
  click_id text PRIMARY KEY,
  org_id text,
  fingerprint text,
  screen text,
  timezone text,
  languages text,
  webdriver boolean,
  touch boolean,
  dwell_ms integer CHECK (dwell_ms >= 0),
  scroll integer CHECK (scroll BETWEEN 0 AND 100),
  -- The click's IP (not the beacon's): fingerprint_reuse counts the distinct IPs of clicks.
  ip text,
  first_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- fingerprint_reuse: one organization's beacons with one fingerprint in the last 24 hours.
CREATE INDEX click_beacons_fingerprint_idx ON click_beacons (org_id, fingerprint, updated_at)
  WHERE fingerprint IS NOT NULL AND org_id IS NOT NULL;
-- The pending pass: beacons whose click had not landed yet.
CREATE INDEX click_beacons_pending_idx ON click_beacons (first_at) WHERE org_id IS NULL;
