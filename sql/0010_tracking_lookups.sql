-- The impression pixel finds a campaign by its external id without knowing the organization
-- (campaigns_external_id_key leads with org_id, so it cannot serve that lookup).
CREATE INDEX campaigns_external_lookup_idx ON campaigns (external_id) WHERE external_id IS NOT NULL;
