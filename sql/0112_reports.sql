-- Reports in the organization's own day and money (docs/reports.md): the reporting time zone and
-- currency, the media source of a campaign, the country of an install, and exchange rates.

-- The zone every report's day is a day in (IANA name) and the currency every amount is reported
-- in (ISO 4217). The defaults keep what reports showed before: UTC days, amounts as stored.
ALTER TABLE organizations ADD COLUMN timezone text NOT NULL DEFAULT 'UTC';
ALTER TABLE organizations ADD COLUMN currency text NOT NULL DEFAULT 'USD';

-- The media source a campaign buys from (google_ads, meta, tiktok, or any name up to 64).
ALTER TABLE campaigns ADD COLUMN partner text;

-- The country of the install request's address, for cohorts by country (clicks have theirs).
ALTER TABLE installs ADD COLUMN country text;

-- Units of the organization's reporting currency per unit of `currency`, from `day` until the
-- next day that has a rate for that currency. Mirrored: the reports convert in DuckDB.
CREATE TABLE fx_rates (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  day date NOT NULL,
  currency text NOT NULL,
  rate numeric NOT NULL CHECK (rate > 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  _txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  _seq bigserial,
  UNIQUE (org_id, currency, day)
);
CREATE INDEX fx_rates_mirror_idx ON fx_rates (_txid, _seq);
CREATE TRIGGER fx_rates_mirror_touch BEFORE UPDATE ON fx_rates
  FOR EACH ROW EXECUTE FUNCTION svc_mirror_touch();
