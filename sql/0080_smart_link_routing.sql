-- Smart links (/l): a capped link's visits so far, claimed one atomic UPDATE at a time so a cap
-- holds exactly across nodes (docs/smart-links-serving.md, "Click cap"); it never resets.
ALTER TABLE links ADD COLUMN cap_used integer NOT NULL DEFAULT 0;

-- The routing decision behind a smart-link click: rule, action, variant and page; NULL for any
-- other click (docs/click-export.md, "route").
ALTER TABLE clicks ADD COLUMN route jsonb;
