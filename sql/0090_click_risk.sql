-- Click risk scoring (docs/protect.md). A score is the capped sum of the weights of the reasons
-- (src/protect/risk-signals.ts); both are stored so an export never recomputes them.
ALTER TABLE clicks ADD COLUMN risk_score integer NOT NULL DEFAULT 0;
ALTER TABLE clicks ADD COLUMN risk_reasons jsonb NOT NULL DEFAULT '[]'::jsonb;

-- A click is invalid when its score reaches this (default 50).
ALTER TABLE organizations ADD COLUMN invalid_threshold integer NOT NULL DEFAULT 50
  CHECK (invalid_threshold BETWEEN 1 AND 100);

-- The blocklist and the export read an organization's risky clicks of the last days.
CREATE INDEX clicks_org_risk_idx ON clicks (org_id, created_at) WHERE risk_score > 0;
