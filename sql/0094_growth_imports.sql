-- Growth imports (docs/growth-imports.md): the region of traffic for regional TV airings, and
-- the TV airings themselves with what their attribution found.

-- The first-level subdivision (state, province) of the visitor's address, as the city database
-- names it: clicks get it at enrichment, installs and SDK events from the request's address.
ALTER TABLE clicks ADD COLUMN region text;
ALTER TABLE installs ADD COLUMN region text;
ALTER TABLE events ADD COLUMN region text;

-- One row per imported airing. The attribution columns are filled at import and rewritten when a
-- later import brings an airing that overlaps it (the spike is then shared).
CREATE TABLE tv_airings (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  network text NOT NULL,
  program text,
  region text,
  aired_at timestamptz NOT NULL,
  window_min integer NOT NULL CHECK (window_min BETWEEN 2 AND 60),
  spot_length_sec integer,
  cost numeric CHECK (cost >= 0),
  campaign_id text,
  baseline_per_min double precision NOT NULL,
  window_count integer NOT NULL,
  lift double precision NOT NULL,
  attributed boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tv_airings_org_aired_idx ON tv_airings (org_id, aired_at DESC, id DESC);
