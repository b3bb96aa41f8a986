-- What the cohort report counts of the events retention dropped (docs/operations.md, "Retention";
-- docs/reports.md, "Cohorts past retention"), so a cohort whose first days went stays whole.
--
-- Per organization, install day and cohort day (days since 1970-01-01 and the days after it, in
-- the organization's time zone when the rows went), and the install's every dimension the report
-- groups or filters by: campaign (the partner is the campaign's, joined when the report runs), app,
-- country, platform, attribution method and whether it is a re-attribution.
--   source 'activity_any': installs active that day by any SDK event (count; value 0);
--   source 'activity_sessions': installs active that day by a session_start (count; value 0);
--   source 'revenue': revenue events of that day in `currency` (count, and the sum of their values).
-- An install counts in an activity row when the last of its events of that day and kind goes, so
-- it is never counted both here and from the events still kept. Mirrored into DuckDB, where the
-- cohort statement reads it (src/analytics/cohorts/cohort-sql.ts).
CREATE TABLE retained_cohorts (
  -- source|org|install day|cohort day|campaign|app|country|platform|method|re-attribution|currency:
  -- a later pass adding to the same cohort day adds to its row.
  id text PRIMARY KEY,
  org_id text NOT NULL,
  source text NOT NULL CHECK (source IN ('activity_any', 'activity_sessions', 'revenue')),
  install_day integer NOT NULL,
  cohort_day integer NOT NULL CHECK (cohort_day >= 0),
  campaign_id text,
  app_id text NOT NULL,
  country text,
  platform text NOT NULL,
  attribution_method text NOT NULL,
  is_reattribution boolean NOT NULL,
  currency text,
  count bigint NOT NULL,
  value numeric NOT NULL DEFAULT 0,
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial
);
CREATE INDEX retained_cohorts_mirror_idx ON retained_cohorts (_txid, _seq);
CREATE TRIGGER retained_cohorts_mirror_touch BEFORE UPDATE ON retained_cohorts
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();

-- An organization's zone as Postgres knows it, or UTC: the zone was checked against the runtime's
-- zones when it was set, and one Postgres does not know (a newer tz release) must not stop the pass.
CREATE FUNCTION svc_known_zone(zone text) RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM now() AT TIME ZONE zone;
  RETURN zone;
EXCEPTION WHEN invalid_parameter_value THEN
  RETURN 'UTC';
END
$$;

-- The retention pass joins each batch of events to their installs by install_key (the pivot's
-- revenue and the cohorts' summaries): probed per event, not a scan of every install per batch.
CREATE INDEX installs_install_key_idx ON installs (install_key);
