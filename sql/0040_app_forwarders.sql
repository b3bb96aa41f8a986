-- Where an app's installs are forwarded for an ad platform's app-conversion API (docs/sdk.md).
-- Only the destination is kept: the advertising ids sent there are held in memory for the send
-- and never stored. `headers` carry the platform's credentials, which the service must replay.
CREATE TABLE app_forwarders (
  app_id text PRIMARY KEY REFERENCES apps(id),
  org_id text NOT NULL REFERENCES organizations(id),
  url text NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_forwarders_org_idx ON app_forwarders (org_id);
