-- svc_mirror_touch(): re-queues an updated row for the DuckDB analytics mirror.
--
-- The mirror copies rows in (_txid, _seq) order and only past transactions that have finished
-- (see docs/analytics-mirror.md). An UPDATE leaves _txid at the inserting transaction, which the
-- cursor may already have passed, so the new values would never reach DuckDB. This BEFORE UPDATE
-- trigger stamps the row with the updating transaction's id instead: the row sorts after the
-- cursor again and the mirror re-copies it, replacing the old copy by primary key `id`.
--
-- Every table mirrored into DuckDB that can be updated must carry it. A module adding its own
-- mirrored table (with `id` primary key, `_txid xid8 NOT NULL DEFAULT pg_current_xact_id()` and
-- `_seq bigserial`, plus an index on (_txid, _seq)) attaches it in its own migration:
--
--   CREATE TRIGGER <table>_mirror_touch BEFORE UPDATE ON <table>
--     FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
--
-- and lists the table in MIRRORED_TABLES (src/analytics/mirror.tables.ts).
CREATE FUNCTION svc_mirror_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW._txid := pg_current_xact_id();
  RETURN NEW;
END
$$;

CREATE TRIGGER clicks_mirror_touch BEFORE UPDATE ON clicks
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
CREATE TRIGGER impressions_mirror_touch BEFORE UPDATE ON impressions
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
CREATE TRIGGER conversions_mirror_touch BEFORE UPDATE ON conversions
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
CREATE TRIGGER costs_mirror_touch BEFORE UPDATE ON costs
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
CREATE TRIGGER installs_mirror_touch BEFORE UPDATE ON installs
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
CREATE TRIGGER events_mirror_touch BEFORE UPDATE ON events
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
CREATE TRIGGER subscriptions_mirror_touch BEFORE UPDATE ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
