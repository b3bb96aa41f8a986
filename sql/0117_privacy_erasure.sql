-- Erasure of one person's data (docs/privacy.md).
--
-- One row per request, kept as its audit record: who asked (an API key or an app's SDK key),
-- when, and what was erased per table. subject_key is a keyed hash of the subject (kind, value
-- and day range): the repeat of a pending request finds it, and nothing reverses it.
-- subject_value holds what the passes need (a device id only as its SHA-256, as installs store
-- it) and is cleared when the request ends, completed or failed.
CREATE TABLE erasure_requests (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  subject_kind text NOT NULL CHECK (subject_kind IN ('device_id', 'advertising_id', 'install_id', 'click_id', 'ip')),
  subject_key text NOT NULL,
  subject_value text,
  from_day date,
  to_day date,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed')),
  source text NOT NULL CHECK (source IN ('api', 'sdk')),
  api_key_id text,
  app_id text,
  -- Rows deleted or anonymised per table, summed over the passes.
  counts jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The first pass ran; the sweep is due at next_attempt_at.
  swept_once boolean NOT NULL DEFAULT false,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  CHECK ((subject_kind = 'ip') = (from_day IS NOT NULL AND to_day IS NOT NULL)),
  CHECK (status = 'pending' OR subject_value IS NULL)
);
-- A repeat while the request is pending is the same request.
CREATE UNIQUE INDEX erasure_requests_pending_key ON erasure_requests (org_id, subject_key) WHERE status = 'pending';
CREATE INDEX erasure_requests_due_idx ON erasure_requests (next_attempt_at) WHERE status = 'pending';

-- Rows deleted from mirrored tables, for every node's DuckDB mirror to delete in turn
-- (docs/analytics-mirror.md, "Deletes"). Itself mirrored: each node copies it by the same
-- cursor, deletes the rows named, and drops its copy. A row is named by the SHA-256 of its id,
-- so the log keeps no erased click id.
CREATE TABLE mirror_deletions (
  id text PRIMARY KEY,
  table_name text NOT NULL,
  row_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial
);
CREATE INDEX mirror_deletions_mirror_idx ON mirror_deletions (_txid, _seq);
-- Never updated; the trigger keeps the rule that every mirrored table carries it (0002).
CREATE TRIGGER mirror_deletions_mirror_touch BEFORE UPDATE ON mirror_deletions
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();

-- Clicks erased, so that one still in a node's click journal (or replayed from it after a crash)
-- is never stored afterwards: the click writer drops a record named here (src/tracking/pipeline/
-- click-tombstones.ts). A click is named by its organization, the first ten characters of its id
-- (a ULID's time) to find candidates without hashing every record, and the id's SHA-256.
CREATE TABLE click_tombstones (
  seq bigserial PRIMARY KEY,
  org_id text NOT NULL,
  id_prefix text NOT NULL,
  id_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id_hash)
);
