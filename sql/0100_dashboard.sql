-- The dashboard (docs/dashboard.md).
--
-- Campaigns are mirrored into DuckDB, so the campaigns report (src/analytics/pivot.ts) names
-- each campaign from the mirror alone. Campaigns are updated (renamed, paused), hence the trigger.
ALTER TABLE campaigns ADD COLUMN _txid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE campaigns ADD COLUMN _seq bigserial;
CREATE INDEX campaigns_mirror_idx ON campaigns (_txid, _seq);
CREATE TRIGGER campaigns_mirror_touch BEFORE UPDATE ON campaigns
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();

-- Clicks answered per organization and minute, added to by every node about twice a second
-- (src/dashboard/realtime/): the realtime counters count a click still in a node's journal,
-- and every node reads the same sums. Rows older than an hour are deleted.
CREATE TABLE realtime_clicks (
  org_id text NOT NULL,
  minute timestamptz NOT NULL,
  clicks bigint NOT NULL,
  PRIMARY KEY (org_id, minute)
);
CREATE INDEX realtime_clicks_minute_idx ON realtime_clicks (minute);
