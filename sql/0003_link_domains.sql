-- A custom hostname belongs to the first organization that binds a link to it, so another
-- organization cannot place links under a domain it does not use (the redirect host answers
-- for every link bound to it). '' (the tracking host) is shared and never claimed.
CREATE TABLE link_domains (
  domain text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Links written before this table existed keep their domains with the organization that used them first.
INSERT INTO link_domains (domain, org_id)
SELECT DISTINCT ON (domain) domain, org_id FROM links WHERE domain <> '' ORDER BY domain, created_at, id;
