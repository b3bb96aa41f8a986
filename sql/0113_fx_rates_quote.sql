-- The currency a rate is quoted in: the organization's reporting currency when the rate was
-- written. Reports use only the rates quoted in the current reporting currency, so a change of
-- currency never converts with rates meant for the old one, and changing back finds them again.
ALTER TABLE fx_rates ADD COLUMN quote text;
UPDATE fx_rates r SET quote = o.currency FROM organizations o WHERE o.id = r.org_id;
ALTER TABLE fx_rates ALTER COLUMN quote SET NOT NULL;

-- A rate written without a quote (an import by SQL, a script) is in the current reporting currency.
CREATE FUNCTION svc_fx_rate_quote() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.quote IS NULL THEN
    SELECT currency INTO NEW.quote FROM organizations WHERE id = NEW.org_id;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER fx_rates_quote BEFORE INSERT ON fx_rates
  FOR EACH ROW EXECUTE FUNCTION svc_fx_rate_quote();
