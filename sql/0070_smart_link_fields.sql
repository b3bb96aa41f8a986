-- Smart-link settings read by /l/{slug} (docs/smart-links.md): whether the visit's query
-- parameters pass through to the target, and the social preview shown to crawlers.
ALTER TABLE links ADD COLUMN pass_params boolean NOT NULL DEFAULT false;
ALTER TABLE links ADD COLUMN preview jsonb;
