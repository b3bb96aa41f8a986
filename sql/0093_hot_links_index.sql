-- GET /api/edge/links/hot counts an organization's clicks of the last 24 hours per link
-- (src/edge/hot-links.repo.ts): with link_id in the index that count reads no click row once
-- the table is vacuumed. IF NOT EXISTS: a large table's index may be built beforehand,
-- CONCURRENTLY (docs/edge.md, "The hot links index").
CREATE INDEX IF NOT EXISTS clicks_org_created_link_idx ON clicks (org_id, created_at DESC) INCLUDE (link_id);
