-- Sign-up and billing with Stripe (issue #27). Rows of the accounts document, so that applying a Stripe event (the
-- subscription's new state and the event's id, for idempotency) and verifying an e-mail are each one transaction.

-- When an account proved it receives mail at its address (NULL: not proved; every account before this migration).
ALTER TABLE accounts ADD COLUMN email_verified_at timestamptz;

-- What Stripe last said of the subscription paying for this one: all NULL (and false) for one the operator sets.
ALTER TABLE subscriptions
  ADD COLUMN stripe_customer_id     text,
  ADD COLUMN stripe_subscription_id text,
  ADD COLUMN stripe_status          text,
  ADD COLUMN current_period_end     timestamptz,
  ADD COLUMN cancel_at_period_end   boolean NOT NULL DEFAULT false,
  ADD COLUMN ended_reason           text,
  ADD COLUMN stripe_synced_at       timestamptz;
-- A webhook names a subscription or a customer, not the organisation: found by either.
CREATE UNIQUE INDEX subscriptions_stripe_subscription ON subscriptions (stripe_subscription_id)
  WHERE stripe_subscription_id IS NOT NULL;
CREATE INDEX subscriptions_stripe_customer ON subscriptions (stripe_customer_id) WHERE stripe_customer_id IS NOT NULL;

-- At most one live verification link per account (a new one replaces it), as password_resets.
CREATE TABLE email_verifications (
  id         text PRIMARY KEY CHECK (id <> ''),
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  token_hash text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
  position   bigint NOT NULL DEFAULT nextval('document_position'),
  CONSTRAINT email_verifications_account UNIQUE (account_id),
  CONSTRAINT email_verifications_token_hash UNIQUE (token_hash)
);
CREATE INDEX email_verifications_expires ON email_verifications (expires_at);

-- Stripe events applied, by id: a redelivery changes nothing. Kept 30 days (Stripe retries for 3), then purged.
-- No foreign key: the record of an event outlives an organisation deleted since.
CREATE TABLE billing_events (
  id              text PRIMARY KEY CHECK (id <> ''),
  type            text NOT NULL CHECK (type <> ''),
  organisation_id text,
  received_at     timestamptz NOT NULL,
  position        bigint NOT NULL DEFAULT nextval('document_position')
);
CREATE INDEX billing_events_received ON billing_events (received_at);

-- Billing changes are audited with their Stripe event, from the source 'stripe'; e-mail verification is audited.
ALTER TABLE audit_events
  ADD COLUMN stripe_event_id text,
  DROP CONSTRAINT audit_events_source_check,
  ADD CONSTRAINT audit_events_source_check CHECK (source IN ('web', 'admin', 'stripe')),
  DROP CONSTRAINT audit_events_event_check,
  ADD CONSTRAINT audit_events_event_check CHECK (event IN (
    'account_created', 'login', 'login_failed', 'logout', 'key_generated', 'key_regenerated', 'key_revoked',
    'subscription_changed', 'member_added', 'member_role_changed', 'member_removed', 'invitation_created',
    'invitation_resent', 'invitation_revoked', 'invitation_accepted', 'password_reset_requested', 'password_reset',
    'email_verified'));
