-- Invitations and password resets (issue #26): single-use links whose tokens are kept only as their SHA-256. Rows of
-- the accounts document, so that accepting an invitation (account, membership, invitation used) is one transaction.
-- Used, revoked and expired rows are deleted, so the tables hold only live links.

CREATE TABLE invitations (
  id              text PRIMARY KEY CHECK (id <> ''),
  organisation_id text NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  email           text NOT NULL CHECK (email <> '' AND length(email) <= 254),
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  token_hash      text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  -- The inviting member's email, as text: the invitation outlives their account. NULL: the operator.
  invited_by      text,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL CHECK (expires_at > created_at),
  position        bigint NOT NULL DEFAULT nextval('document_position'),
  -- Inviting an email again replaces its pending invitation: one per organisation and email (this index also serves
  -- the organisation's foreign key).
  CONSTRAINT invitations_organisation_email UNIQUE (organisation_id, email),
  -- A link names one invitation.
  CONSTRAINT invitations_token_hash UNIQUE (token_hash)
);
-- Expired rows are found by time (the purge).
CREATE INDEX invitations_expires ON invitations (expires_at);

-- At most one live reset link per account (a new one replaces it): an unauthenticated request cannot grow the table
-- beyond the number of accounts.
CREATE TABLE password_resets (
  id         text PRIMARY KEY CHECK (id <> ''),
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  token_hash text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
  position   bigint NOT NULL DEFAULT nextval('document_position'),
  CONSTRAINT password_resets_account UNIQUE (account_id),
  CONSTRAINT password_resets_token_hash UNIQUE (token_hash)
);
CREATE INDEX password_resets_expires ON password_resets (expires_at);

ALTER TABLE audit_events
  DROP CONSTRAINT audit_events_event_check,
  ADD CONSTRAINT audit_events_event_check CHECK (event IN (
    'account_created', 'login', 'login_failed', 'logout', 'key_generated', 'key_regenerated', 'key_revoked',
    'subscription_changed', 'member_added', 'member_role_changed', 'member_removed', 'invitation_created',
    'invitation_resent', 'invitation_revoked', 'invitation_accepted', 'password_reset_requested', 'password_reset'));
