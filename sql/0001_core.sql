-- Core schema for the whole interface. Ids are ULIDs minted by the service (text).
-- Tables mirrored into DuckDB carry _txid (the writing transaction) and _seq (insertion order):
-- the mirror copies rows whose transaction is older than every transaction still running,
-- so a row that commits late is never skipped (see src/analytics/mirror.ts).

CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  email text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- A session is a signed cookie plus this row, so logout revokes it server-side.
CREATE TABLE sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id),
  org_id text NOT NULL REFERENCES organizations(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);

-- Only the SHA-256 of a key and its clear prefix are stored.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  prefix text NOT NULL UNIQUE,
  key_hash text NOT NULL,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_org_idx ON api_keys (org_id, created_at);

-- Which credential wrote what. Written in the same transaction as the write it records.
CREATE TABLE audit_log (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  api_key_id text,
  user_id text,
  action text NOT NULL,
  entity text NOT NULL,
  entity_id text,
  detail jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_org_idx ON audit_log (org_id, created_at DESC);

CREATE TABLE apps (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  platform text NOT NULL,
  bundle_id text,
  store_url text,
  -- The SDK key ships inside the app binary, so it is shown again in listings; lookups go by hash.
  sdk_key text NOT NULL,
  sdk_key_hash text NOT NULL UNIQUE,
  reattribution_days integer NOT NULL DEFAULT 90,
  -- Attribution windows and switches (see docs/attribution.md); null means the documented default.
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX apps_org_idx ON apps (org_id, created_at);

CREATE TABLE campaigns (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  app_id text REFERENCES apps(id),
  name text NOT NULL,
  external_id text,
  status text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX campaigns_external_id_key ON campaigns (org_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX campaigns_org_idx ON campaigns (org_id, created_at);

CREATE TABLE links (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  slug text NOT NULL,
  -- '' means "the TRACKING_URL host"; otherwise a customer's own lower-cased hostname.
  domain text NOT NULL DEFAULT '',
  kind text NOT NULL DEFAULT 'tracking',
  campaign_id text REFERENCES campaigns(id),
  destination text,
  deep_link_path text,
  status text NOT NULL DEFAULT 'active',
  expires_at timestamptz,
  click_cap integer,
  rules jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX links_domain_slug_key ON links (domain, slug);
CREATE INDEX links_org_idx ON links (org_id, created_at);

CREATE TABLE clicks (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  link_id text,
  campaign_id text,
  created_at timestamptz NOT NULL,
  gclid text,
  gbraid text,
  wbraid text,
  campaign_ext_id text,
  ad_group_ext_id text,
  creative_id text,
  keyword text,
  match_type text,
  network text,
  device text,
  placement text,
  target_id text,
  loc_physical_ms text,
  loc_interest_ms text,
  ad_position text,
  next_hop_url text NOT NULL,
  transparent_param_present boolean NOT NULL DEFAULT false,
  force_transparent boolean NOT NULL DEFAULT false,
  is_bot boolean NOT NULL DEFAULT false,
  latency_ms integer,
  ip text,
  ip_day_hash text,
  household_hash text,
  user_agent text,
  referer text,
  country text,
  os_family text,
  os_version text,
  device_type text,
  -- Set by an ingestion step (bot, invalid, blocked); such clicks never attribute.
  drop_reason text,
  params jsonb,
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial
);
CREATE INDEX clicks_org_created_idx ON clicks (org_id, created_at DESC);
CREATE INDEX clicks_org_gclid_idx ON clicks (org_id, gclid, created_at DESC) WHERE gclid IS NOT NULL;
CREATE INDEX clicks_org_ip_idx ON clicks (org_id, ip, created_at DESC);
CREATE INDEX clicks_org_household_idx ON clicks (org_id, household_hash, created_at DESC);
CREATE INDEX clicks_mirror_idx ON clicks (_txid, _seq);

-- Raw viewer IPs are never stored: only a hash of IP + day and a household hash of the prefix.
CREATE TABLE impressions (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  campaign_id text,
  app_id text,
  creative_id text,
  placement text,
  partner text,
  ip_day_hash text NOT NULL,
  household_hash text NOT NULL,
  user_agent text,
  os text,
  device_type text,
  country text,
  source text NOT NULL DEFAULT 'pixel',
  created_at timestamptz NOT NULL,
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial
);
CREATE INDEX impressions_org_ipday_idx ON impressions (org_id, ip_day_hash, created_at DESC);
CREATE INDEX impressions_org_household_idx ON impressions (org_id, household_hash, created_at DESC);
CREATE INDEX impressions_mirror_idx ON impressions (_txid, _seq);

CREATE TABLE conversions (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  click_id text,
  campaign_id text,
  event_name text NOT NULL,
  value numeric,
  currency text,
  order_id text,
  gclid text,
  source text NOT NULL,
  matched boolean NOT NULL DEFAULT false,
  api_key_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial
);
CREATE UNIQUE INDEX conversions_order_key ON conversions (org_id, order_id, event_name) WHERE order_id IS NOT NULL;
CREATE INDEX conversions_org_created_idx ON conversions (org_id, created_at DESC);
CREATE INDEX conversions_mirror_idx ON conversions (_txid, _seq);

CREATE TABLE costs (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  campaign_id text NOT NULL REFERENCES campaigns(id),
  day date NOT NULL,
  spend numeric NOT NULL,
  currency text NOT NULL DEFAULT 'USD',
  impressions bigint,
  updated_at timestamptz NOT NULL DEFAULT now(),
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial,
  UNIQUE (campaign_id, day)
);
CREATE INDEX costs_mirror_idx ON costs (_txid, _seq);

-- device_id_hash is the SHA-256 hex of the platform device id; raw ids never reach this table.
CREATE TABLE installs (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  app_id text NOT NULL REFERENCES apps(id),
  device_id_hash text NOT NULL,
  platform text NOT NULL,
  os_version text,
  app_version text,
  sdk_version text,
  locale text,
  timezone text,
  limit_ad_tracking boolean,
  installed_at timestamptz NOT NULL,
  attribution_method text NOT NULL,
  campaign_id text,
  click_id text,
  impression_id text,
  deep_link_path text,
  -- Which touch matched and on what signals; confidence for the probabilistic tiers.
  match_evidence jsonb,
  confidence real,
  is_reattribution boolean NOT NULL DEFAULT false,
  attributed_at timestamptz NOT NULL,
  push_token text,
  ip_day_hash text,
  household_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial,
  UNIQUE (app_id, device_id_hash)
);
CREATE INDEX installs_org_created_idx ON installs (org_id, created_at DESC);
CREATE INDEX installs_mirror_idx ON installs (_txid, _seq);

-- In-app events, ad revenue (name 'ad_revenue') and subscription events share this table.
CREATE TABLE events (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  app_id text NOT NULL,
  install_id text,
  device_id_hash text NOT NULL,
  name text NOT NULL,
  value numeric,
  currency text,
  params jsonb,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial
);
CREATE INDEX events_app_device_idx ON events (app_id, device_id_hash, occurred_at DESC);
CREATE INDEX events_mirror_idx ON events (_txid, _seq);

CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  app_id text NOT NULL,
  install_id text,
  device_id_hash text NOT NULL,
  store text NOT NULL,
  original_transaction_id text,
  purchase_token text,
  product_id text NOT NULL,
  is_trial boolean NOT NULL DEFAULT false,
  price_micros bigint,
  currency text,
  status text NOT NULL DEFAULT 'active',
  expires_at timestamptz,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial
);
CREATE UNIQUE INDEX subscriptions_original_tx_key ON subscriptions (app_id, store, original_transaction_id) WHERE original_transaction_id IS NOT NULL;
CREATE UNIQUE INDEX subscriptions_purchase_token_key ON subscriptions (app_id, store, purchase_token) WHERE original_transaction_id IS NULL AND purchase_token IS NOT NULL;
CREATE INDEX subscriptions_mirror_idx ON subscriptions (_txid, _seq);

CREATE TABLE reengagements (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  app_id text NOT NULL,
  install_id text NOT NULL REFERENCES installs(id),
  click_id text,
  campaign_id text,
  attributed boolean NOT NULL,
  deep_link_path text,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reengagements_install_idx ON reengagements (install_id, occurred_at DESC);
