-- Where a link's click redirect may send a visitor when the request names the landing URL
-- (`/c/{slug}?url=`): a JSON array of hosts and `*.suffix` patterns, or NULL for anywhere, the
-- transparent redirect's default (docs/tracking.md).
ALTER TABLE links ADD COLUMN allowed_landing_hosts jsonb;
