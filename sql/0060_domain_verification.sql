-- A custom domain serves links only once its holder has proved control of it: the holder's
-- token in a DNS TXT record (docs/management-api.md, "Custom domains"). Claims made before
-- this start unverified; DOMAIN_VERIFICATION=off serves them without a check.
ALTER TABLE organizations ADD COLUMN domain_token text;

ALTER TABLE link_domains ADD COLUMN verified_at timestamptz;
ALTER TABLE link_domains ADD COLUMN checked_at timestamptz;
ALTER TABLE link_domains ADD COLUMN check_error text;
