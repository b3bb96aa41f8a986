-- The Google Ads blocklist now reads an organization's invalid clicks on the DuckDB analytics
-- mirror (src/protect/blocklist.repo.ts, caught up before the read), as the invalid-click export
-- does, so nothing reads this index any more. It cost every risky click an index entry on the
-- click writer's COPY, the hottest write path. IF EXISTS: a busy database may drop it beforehand,
-- CONCURRENTLY (docs/protect-sync.md, "Where it is read").
DROP INDEX IF EXISTS clicks_org_risk_idx;
