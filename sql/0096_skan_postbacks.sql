-- SKAdNetwork install-validation postbacks (docs/skan.md). Each is stored decoded beside the body
-- Apple sent; idempotent on the transaction id within an organization. Mirrored into DuckDB.
CREATE TABLE skan_postbacks (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  -- The advertised app (by its App Store id) and the campaign (by its source identifier), when known.
  app_id text REFERENCES apps(id),
  campaign_id text REFERENCES campaigns(id),
  transaction_id text NOT NULL,
  version text NOT NULL,
  ad_network_id text NOT NULL,
  -- The digits as sent: `source-identifier` (4.0, two to four digits) or `campaign-id` (2.2, 3.0).
  source_identifier text,
  source_app_id text,
  source_domain text,
  conversion_value smallint,
  coarse_conversion_value text,
  postback_sequence_index smallint,
  fidelity_type smallint,
  did_win boolean,
  redownload boolean,
  -- false only under SKAN_VERIFY=off, for a postback whose signature did not verify.
  verified boolean NOT NULL,
  raw jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial,
  UNIQUE (org_id, transaction_id)
);
CREATE INDEX skan_postbacks_org_created_idx ON skan_postbacks (org_id, created_at DESC, id DESC);
CREATE INDEX skan_postbacks_campaign_idx ON skan_postbacks (org_id, campaign_id) WHERE campaign_id IS NOT NULL;
CREATE INDEX skan_postbacks_mirror_idx ON skan_postbacks (_txid, _seq);
CREATE TRIGGER skan_postbacks_mirror_touch BEFORE UPDATE ON skan_postbacks
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();

-- The ad network's campaign number in SKAdNetwork: 4.0 source identifiers and 2.2/3.0 campaign ids match it.
ALTER TABLE campaigns ADD COLUMN skan_source_identifier integer
  CHECK (skan_source_identifier BETWEEN 0 AND 9999);
CREATE UNIQUE INDEX campaigns_skan_source_identifier_key ON campaigns (org_id, skan_source_identifier)
  WHERE skan_source_identifier IS NOT NULL;

-- The App Store id of the app (the postback's `app-id`); without it, `id<digits>` in an Apple store_url.
ALTER TABLE apps ADD COLUMN apple_app_id text CHECK (apple_app_id ~ '^(0|[1-9][0-9]{0,19})$');
