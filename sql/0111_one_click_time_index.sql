-- One (org_id, created_at) index on clicks instead of two: clicks_org_created_link_idx (0093)
-- has the same keys plus link_id, so it serves every query the narrow index served, and each
-- stored click then pays for one index entry fewer (docs/edge.md, "The hot links index").
DROP INDEX IF EXISTS clicks_org_created_idx;
