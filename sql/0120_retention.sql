-- Retention (docs/operations.md, "Retention").
--
-- A retention pass drops the day partitions past RETENTION_DAYS. The mirror deletes the same days:
-- a mirror_deletions row names either one row (row_hash, the erasure's way) or a range of ids,
-- [id_from, id_to), which is a run of whole days of ULID keys.
ALTER TABLE mirror_deletions ALTER COLUMN row_hash DROP NOT NULL;
ALTER TABLE mirror_deletions ADD COLUMN id_from text;
ALTER TABLE mirror_deletions ADD COLUMN id_to text;
ALTER TABLE mirror_deletions ADD CONSTRAINT mirror_deletions_one_target
  CHECK ((row_hash IS NOT NULL) <> (id_from IS NOT NULL AND id_to IS NOT NULL));

-- What the reports count of rows retention dropped, so a report over those days stays whole:
-- per organization, campaign, quarter hour (any time zone's day is a run of whole quarter hours)
-- and currency. source 'clicks': clicks no ingestion step dropped (count; value 0). source
-- 'revenue': revenue events (count and the sum of their values), by the campaign of their install.
-- Mirrored into DuckDB, where the pivot reads it (src/analytics/pivot.ts).
CREATE TABLE retained_totals (
  -- source|org|campaign|quarter-hour epoch|currency: a second pass over the same quarter hour adds to it.
  id text PRIMARY KEY,
  org_id text NOT NULL,
  source text NOT NULL CHECK (source IN ('clicks', 'revenue')),
  campaign_id text,
  bucket timestamptz NOT NULL,
  currency text,
  count bigint NOT NULL,
  value numeric NOT NULL DEFAULT 0,
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial
);
CREATE INDEX retained_totals_mirror_idx ON retained_totals (_txid, _seq);
CREATE TRIGGER retained_totals_mirror_touch BEFORE UPDATE ON retained_totals
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
