-- An organization's ad account connection (docs/protect-sync.md). `settings` holds what may be
-- shown (customer ids); `secrets` the developer token and OAuth client and refresh token, sealed
-- with AES-256-GCM under a key derived from SESSION_SECRET (src/shared/secret-box.ts).
CREATE TABLE ad_integrations (
  org_id text NOT NULL REFERENCES organizations(id),
  provider text NOT NULL CHECK (provider IN ('google_ads')),
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  secrets text NOT NULL,
  -- One sync per connection at a time: a lease taken by one atomic UPDATE, renewed per campaign,
  -- so no transaction stays open across the calls to the ad platform.
  sync_lease_token text,
  sync_lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, provider)
);

-- The IP exclusions this service pushed and the ad platform accepted, by campaign. A criterion
-- of the campaign not named here is the advertiser's own and is never removed.
CREATE TABLE ip_exclusions (
  org_id text NOT NULL REFERENCES organizations(id),
  campaign_id text NOT NULL REFERENCES campaigns(id),
  ip_block text NOT NULL,
  criterion_resource_name text NOT NULL,
  pushed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, campaign_id, ip_block)
);
