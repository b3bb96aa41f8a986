-- The currency a rate is quoted in: the organization's reporting currency when the rate was
-- written. Reports use only the rates quoted in the current reporting currency, so a change of
-- currency never converts with rates meant for the old one, and changing back finds them again.
ALTER TABLE fx_rates ADD COLUMN quote text;
UPDATE fx_rates r SET quote = o.currency FROM organizations o WHERE o.id = r.org_id;
ALTER TABLE fx_rates ALTER COLUMN quote SET NOT NULL;
