-- Privacy Sandbox, Attribution Reporting API (docs/privacy-sandbox.md).
-- A registered source: the random 64-bit id the browser will echo in its reports, and whose it is.
-- numeric, not bigint: the id is unsigned and uses all 64 bits.
CREATE TABLE ara_sources (
  source_event_id numeric(20, 0) PRIMARY KEY
    CHECK (source_event_id >= 0 AND source_event_id <= 18446744073709551615),
  org_id text NOT NULL,
  link_id text,
  campaign_id text,
  destination text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ara_sources_org_idx ON ara_sources (org_id, created_at DESC);

-- What browsers post to the reporting endpoints, as received. org_id is set when the report names
-- a source this service registered; a report naming no known source is kept with org_id null.
CREATE TABLE ara_reports (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('event', 'aggregate', 'debug')),
  -- The path under debug/ (verbose, report-event-attribution ...) of a debug report.
  debug_path text,
  org_id text,
  source_event_id numeric(20, 0),
  body jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'debug') = (debug_path IS NOT NULL))
);
CREATE INDEX ara_reports_org_idx ON ara_reports (org_id, received_at DESC) WHERE org_id IS NOT NULL;
CREATE INDEX ara_reports_source_idx ON ara_reports (source_event_id) WHERE source_event_id IS NOT NULL;
