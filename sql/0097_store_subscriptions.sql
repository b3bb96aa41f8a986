-- Store subscription notifications (docs/subscriptions.md): the state machine's columns on
-- subscriptions, and the notification ids that make both receivers idempotent.

-- A notification can name a purchase no SDK call has reported yet: the subscription (and the
-- events it records) has no device until the SDK call links it.
ALTER TABLE subscriptions ALTER COLUMN device_id_hash DROP NOT NULL;
ALTER TABLE events ALTER COLUMN device_id_hash DROP NOT NULL;

-- status holds the state (trial, active, grace_period, billing_retry, cancelled, expired,
-- refunded, revoked, paused); last_signed_at is the signed time of the newest notification
-- applied, so an older one arriving late never moves the state back.
ALTER TABLE subscriptions
  ADD COLUMN last_signed_at timestamptz,
  ADD COLUMN environment text NOT NULL DEFAULT 'production';
UPDATE subscriptions SET status = 'trial' WHERE is_trial AND status = 'active';

-- Google Play names a purchase by its token whatever else the SDK call sent.
CREATE INDEX subscriptions_purchase_token_idx ON subscriptions (app_id, store, purchase_token) WHERE purchase_token IS NOT NULL;
CREATE INDEX subscriptions_org_updated_idx ON subscriptions (org_id, updated_at DESC, id DESC);
-- Notifications find their app by bundle id or package name.
CREATE INDEX apps_bundle_id_idx ON apps (bundle_id) WHERE bundle_id IS NOT NULL;

-- One row per notification received: a replay (same id) answers what the first answered.
CREATE TABLE store_notifications (
  app_id text NOT NULL REFERENCES apps(id),
  store text NOT NULL,
  notification_id text NOT NULL,
  org_id text NOT NULL,
  type text NOT NULL,
  subtype text,
  signed_at timestamptz NOT NULL,
  subscription_id text,
  -- applied, stale (older than one applied: state kept), ignored (a type that moves nothing)
  outcome text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, store, notification_id)
);
CREATE INDEX store_notifications_subscription_idx ON store_notifications (subscription_id) WHERE subscription_id IS NOT NULL;
