-- Key-level rate limits (docs/security.md, "Key-level rate limits"): requests a minute one API key,
-- or one app's SDK key, may make across every node. null is no limit of the key's own
-- (KEY_RATE_LIMIT, when set, applies instead).
ALTER TABLE api_keys ADD COLUMN rate_limit_per_minute integer
  CHECK (rate_limit_per_minute BETWEEN 1 AND 1000000);
ALTER TABLE apps ADD COLUMN rate_limit_per_minute integer
  CHECK (rate_limit_per_minute BETWEEN 1 AND 1000000);
