-- An integer key per install, carried by the events that name the install, so the cohort report
-- (src/analytics/cohorts/cohort-sql.ts) joins millions of events to their installs on a bigint
-- instead of the 26-character install id: on the DuckDB mirror that join and the scan of the
-- id column were most of the report's time (docs/performance-analytics.md, "bench:cohorts").
-- The text id stays the install's identity everywhere else; the key is never shown.

-- Existing installs are numbered in the order they were written; new ones take the next value.
ALTER TABLE installs ADD COLUMN install_key bigserial;

-- Filled by the store, not by the writers: every path that records an event (SDK batches, ad
-- revenue, store notifications, uninstall marks, imports) gets it, and so does an event linked
-- to its install later (sdk.repo.ts, linkSubscription). An event whose install is not known
-- keeps a null key, as it keeps a null install_id.
ALTER TABLE events ADD COLUMN install_key bigint;

CREATE FUNCTION svc_event_install_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.install_id IS NULL THEN
    NEW.install_key := NULL;
  ELSIF TG_OP = 'INSERT' OR NEW.install_id IS DISTINCT FROM OLD.install_id OR NEW.install_key IS NULL THEN
    SELECT i.install_key INTO NEW.install_key FROM installs i WHERE i.id = NEW.install_id;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER events_install_key BEFORE INSERT OR UPDATE OF install_id ON events
  FOR EACH ROW EXECUTE FUNCTION svc_event_install_key();

-- The events written before this migration; the mirror re-copies them (svc_mirror_touch).
UPDATE events e SET install_key = i.install_key FROM installs i WHERE i.id = e.install_id;
