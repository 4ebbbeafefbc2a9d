-- Organisations and their members (issue #26): the practice owns the subscription, the key, the catchment and the
-- webhook; people sign in as themselves and act with a role. Each existing account was its own practice: it becomes
-- the owner of an organisation named after its email ('org-' || account id, as the JSON files' schema 2 upgrade does).

CREATE TABLE organisations (
  id         text PRIMARY KEY CHECK (id <> ''),
  name       text NOT NULL CHECK (name <> '' AND length(name) <= 200),
  created_at timestamptz NOT NULL,
  position   bigint NOT NULL DEFAULT nextval('document_position')
);

-- An account belongs to one organisation (UNIQUE account_id); removing the account removes its membership.
CREATE TABLE members (
  organisation_id text NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  account_id      text NOT NULL UNIQUE REFERENCES accounts (id) ON DELETE CASCADE,
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at      timestamptz NOT NULL,
  position        bigint NOT NULL DEFAULT nextval('document_position'),
  PRIMARY KEY (organisation_id, account_id)
);

INSERT INTO organisations (id, name, created_at)
SELECT 'org-' || id, email, created_at FROM accounts ORDER BY position, id;
INSERT INTO members (organisation_id, account_id, role, created_at)
SELECT 'org-' || id, id, 'owner', created_at FROM accounts ORDER BY position, id;

-- The subscription is the organisation's, no longer an account's: it stays when its founder leaves.
ALTER TABLE subscriptions ADD COLUMN organisation_id text REFERENCES organisations (id) ON DELETE CASCADE;
UPDATE subscriptions SET organisation_id = 'org-' || account_id;
ALTER TABLE subscriptions
  ALTER COLUMN organisation_id SET NOT NULL,
  ADD CONSTRAINT subscriptions_organisation_unique UNIQUE (organisation_id),
  DROP COLUMN account_id;

-- A key is the organisation's; account_id says who created it and is cleared when that person's account goes.
ALTER TABLE api_keys
  ALTER COLUMN account_id DROP NOT NULL,
  DROP CONSTRAINT api_keys_account_id_fkey,
  ADD CONSTRAINT api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE SET NULL;
-- At most one active key per subscription (was: per account, the same thing while each account had its own).
DROP INDEX api_keys_one_active_per_account;
CREATE UNIQUE INDEX api_keys_one_active_per_subscription ON api_keys (subscription_id) WHERE status = 'active';
DROP INDEX api_keys_account_created;
CREATE INDEX api_keys_subscription_created ON api_keys (subscription_id, created_at);
-- The keys document loads each subscription's newest revoked keys by position.
DROP INDEX api_keys_account_position;
CREATE INDEX api_keys_subscription_position ON api_keys (subscription_id, position);

-- The audit trail names the organisation of each event (its Activity page) and a team event's member and role.
ALTER TABLE audit_events
  ADD COLUMN organisation_id text,
  ADD COLUMN member_email    text,
  ADD COLUMN role            text CHECK (role IN ('owner', 'admin', 'member')),
  DROP CONSTRAINT audit_events_event_check,
  ADD CONSTRAINT audit_events_event_check CHECK (event IN (
    'account_created', 'login', 'login_failed', 'logout', 'key_generated', 'key_regenerated', 'key_revoked',
    'subscription_changed', 'member_added', 'member_role_changed', 'member_removed'));
CREATE INDEX audit_events_organisation ON audit_events (organisation_id, id) WHERE organisation_id IS NOT NULL;
