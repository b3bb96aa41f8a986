-- Outbound postbacks: where an organization wants its conversions forwarded, and the outbox
-- that carries each forward until it is delivered (docs/postbacks.md).
--
-- The secret signs POST bodies (HMAC-SHA256), so it has to be usable in clear by the sender;
-- it is shown once at creation and never listed again.
CREATE TABLE postback_destinations (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations(id),
  -- URL template with macros such as {click_id}; the scheme and host are literal.
  url text NOT NULL,
  method text NOT NULL DEFAULT 'GET',
  -- JSON array of event names this destination wants; null means every event.
  events jsonb,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Deleted destinations stay so the delivery log keeps its reference.
  deleted_at timestamptz
);
CREATE INDEX postback_destinations_org_idx ON postback_destinations (org_id, created_at DESC) WHERE deleted_at IS NULL;

-- One row per (destination, conversion): written in the transaction that creates the
-- conversion, claimed by workers with FOR UPDATE SKIP LOCKED, and kept as the delivery log.
-- status: pending (due at next_attempt_at), delivered, failed (gave up or not retryable),
-- cancelled (destination deleted before delivery).
CREATE TABLE postback_deliveries (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  destination_id text NOT NULL REFERENCES postback_destinations(id),
  conversion_id text NOT NULL,
  event_name text NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  UNIQUE (destination_id, conversion_id)
);
CREATE INDEX postback_deliveries_due_idx ON postback_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX postback_deliveries_org_idx ON postback_deliveries (org_id, created_at DESC);

-- The late matcher scans recent unmatched conversions that name a click id or a gclid.
CREATE INDEX conversions_unmatched_idx ON conversions (created_at)
  WHERE NOT matched AND (click_id IS NOT NULL OR gclid IS NOT NULL);
