-- Webhooks (issue #17): what DATA_DIR/webhooks.json holds without DATABASE_URL, shared here by every instance.
--
-- One webhook per subscription, and the queue of deliveries still to make. Workers of every instance claim due
-- deliveries in the `webhooks` document's update (a lease in claimed_until), so one instance sends each.

CREATE TABLE webhooks (
  subscription_id text PRIMARY KEY REFERENCES subscriptions (id) ON DELETE CASCADE,
  url             text NOT NULL CHECK (url ~ '^https?://' AND length(url) <= 2000),
  -- The signing secret (`whsec_…`): the receiver holds it too, and the server needs it to sign each delivery, so it
  -- is kept as it is (never logged, never shown again after PUT).
  secret          text NOT NULL CHECK (secret <> ''),
  created_at      timestamptz NOT NULL,
  -- What GET /api/v1/webhook shows of the newest delivery: {id, status, attempts, last_attempt_at, http_status,
  -- error, alert_count}; null before the first.
  last_delivery   jsonb CHECK (last_delivery IS NULL OR jsonb_typeof(last_delivery) = 'object'),
  position        bigint NOT NULL DEFAULT nextval('document_position')
);

-- Deliveries still pending or retrying (delivered and failed ones leave the table). The body is fixed when the
-- delivery is queued: X-Signature signs exactly these bytes.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY CHECK (id <> ''),
  subscription_id  text NOT NULL REFERENCES webhooks (subscription_id) ON DELETE CASCADE,
  body             text NOT NULL,
  alert_count      integer NOT NULL CHECK (alert_count >= 0),
  created_at       timestamptz NOT NULL,
  attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  first_attempt_at timestamptz,
  last_attempt_at  timestamptz,
  next_attempt_at  timestamptz NOT NULL,
  claimed_until    timestamptz,
  claimed_by       text,
  http_status      integer,
  error            text,
  position         bigint NOT NULL DEFAULT nextval('document_position')
);
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id);

INSERT INTO data_version (name) VALUES ('webhooks');
