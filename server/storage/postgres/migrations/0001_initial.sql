-- The first schema: what the JSON files in DATA_DIR hold today, as tables (issue #15).
--
-- Applied by migrate.ts inside one transaction, recorded in schema_migrations. Never edit a migration once released:
-- add the next numbered file instead.
--
-- Conventions:
-- * Ids are text, not uuid: the JSON records allow any non-empty string and existing files are to be imported as
--   they are. New ids are still randomUUID().
-- * Times are timestamptz (the JSON files hold ISO strings with milliseconds, which round-trip exactly).
-- * Enumerations are text with a CHECK, not ENUM types: adding a value later is a one-line constraint swap that does
--   not need ALTER TYPE outside a transaction.
-- * Everything that belongs to an account goes with it (ON DELETE CASCADE), except the audit trail, which outlives it.

-- Accounts ---------------------------------------------------------------------------------------------------------

CREATE TABLE accounts (
  id            text PRIMARY KEY CHECK (id <> ''),
  -- Stored as AccountService normalises it (trimmed, lower case); the index below also refuses a second account whose
  -- address differs only in case, whoever writes it. Look up with lower(email) = lower($1) to use it.
  email         text NOT NULL CHECK (length(email) >= 3),
  password_hash text NOT NULL CHECK (password_hash <> ''),
  created_at    timestamptz NOT NULL
);
CREATE UNIQUE INDEX accounts_email_unique ON accounts (lower(email));

-- One subscription per account (AccountService.setSubscription finds it by account and updates it in place).
CREATE TABLE subscriptions (
  id         text PRIMARY KEY CHECK (id <> ''),
  account_id text NOT NULL UNIQUE REFERENCES accounts (id) ON DELETE CASCADE,
  plan       text NOT NULL CHECK (plan = 'Clinic-Wide Access'),
  status     text NOT NULL CHECK (status IN ('active', 'inactive')),
  -- The first instant the subscription no longer counts as active; null = no end date.
  expires_at timestamptz,
  -- Requests per minute; no default here: the code's DEFAULT_RATE_LIMIT is the one source of it.
  rate_limit integer NOT NULL CHECK (rate_limit > 0),
  updated_at timestamptz NOT NULL
);

-- API keys ---------------------------------------------------------------------------------------------------------

CREATE TABLE api_keys (
  id              text PRIMARY KEY CHECK (id <> ''),
  account_id      text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  subscription_id text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  -- SHA-256 of the raw key, hex. The raw key is never stored.
  key_hash        text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  -- `sk_live_` and 4 characters: enough to tell keys apart, useless to an attacker.
  key_prefix      text NOT NULL,
  status          text NOT NULL CHECK (status IN ('active', 'revoked')),
  created_at      timestamptz NOT NULL,
  revoked_at      timestamptz,
  last_used_at    timestamptz,
  CONSTRAINT api_keys_revoked_at_matches_status CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);
-- At most one active key per account, whoever writes and however many processes: the database refuses the second
-- (unique_violation, 23505) even when two transactions each saw "no key" first. Revoked keys are not limited.
CREATE UNIQUE INDEX api_keys_one_active_per_account ON api_keys (account_id) WHERE status = 'active';
-- Key status and the revoked history of an account, newest first.
CREATE INDEX api_keys_account_created ON api_keys (account_id, created_at);

-- The times of each account's recent key actions over HTTP (key-action-limit.ts: ten per hour). Checked and inserted
-- in the same transaction as the key change, after locking the account's row (SELECT … FROM accounts … FOR UPDATE)
-- so that concurrent actions of one account are counted one after the other. Rows older than the window are deleted
-- by the same transactions.
CREATE TABLE key_actions (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  at         timestamptz NOT NULL
);
CREATE INDEX key_actions_account_at ON key_actions (account_id, at);
CREATE INDEX key_actions_at ON key_actions (at);

-- Audit trail --------------------------------------------------------------------------------------------------------

-- Append-only: the triggers below refuse UPDATE, DELETE and TRUNCATE. No foreign key to accounts: a failed login for
-- an unknown address has no account, and the trail outlives whatever it mentions. Read oldest first by id (the order
-- events were written, as audit.jsonl's line order), not by `at` (which a caller may pass).
CREATE TABLE audit_events (
  id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at                      timestamptz NOT NULL,
  event                   text NOT NULL CHECK (event IN (
                            'account_created', 'login', 'login_failed', 'logout',
                            'key_generated', 'key_regenerated', 'key_revoked', 'subscription_changed')),
  source                  text NOT NULL CHECK (source IN ('web', 'admin')),
  account_id              text,
  email                   text,
  ip                      text,
  -- Never a whole key: the store cuts anything that looks like one to its prefix, as JsonLinesAuditLog does.
  key_prefix              text,
  reason                  text,
  -- The subscription after a subscription_changed event; all three or none.
  subscription_status     text CHECK (subscription_status IN ('active', 'inactive')),
  subscription_expires_at timestamptz,
  subscription_rate_limit integer,
  CONSTRAINT audit_events_subscription_whole CHECK (
    (subscription_status IS NULL) = (subscription_rate_limit IS NULL)
    AND (subscription_status IS NOT NULL OR subscription_expires_at IS NULL))
);
CREATE INDEX audit_events_account ON audit_events (account_id, id) WHERE account_id IS NOT NULL;
CREATE INDEX audit_events_email ON audit_events (lower(email), id) WHERE email IS NOT NULL;

CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_events_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();

-- Declarations -------------------------------------------------------------------------------------------------------

CREATE TABLE declarations (
  agrn        text PRIMARY KEY CHECK (agrn ~ '^[0-9]+$'),
  title       text NOT NULL CHECK (title <> ''),
  state       text CHECK (state IN ('NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'ACT')),
  hazard_type text CHECK (hazard_type <> ''),
  start_date  date NOT NULL,
  end_date    date,
  url         text,
  sources     text[] NOT NULL DEFAULT '{}'
);

-- The LGAs a declaration names, in the order it names them: the only place they are kept (no JSON copy on
-- declarations that could disagree with it). Indexed by ABS code and by name for "which declarations cover this LGA".
CREATE TABLE declaration_lgas (
  agrn     text NOT NULL REFERENCES declarations (agrn) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  name     text NOT NULL CHECK (name <> ''),
  code     text CHECK (code ~ '^[0-9]{5}$'),
  PRIMARY KEY (agrn, position)
);
CREATE INDEX declaration_lgas_code ON declaration_lgas (code) WHERE code IS NOT NULL;
CREATE INDEX declaration_lgas_name ON declaration_lgas (lower(name));

-- The time of the last successful refresh (DeclarationsFile.last_updated): one row, written in the same transaction
-- as the declarations it dates.
CREATE TABLE declarations_meta (
  singleton    boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  last_updated timestamptz
);
INSERT INTO declarations_meta (singleton, last_updated) VALUES (true, NULL);

-- Ingest state -------------------------------------------------------------------------------------------------------

-- One row, IngestStateFile as it is: read and written whole by the ingest, never queried inside, at most 30 runs of
-- history. The nested parts are jsonb in the shapes ingest-state.ts's zod schemas check on read.
CREATE TABLE ingest_state (
  singleton           boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  last_attempt_at     timestamptz,
  last_success_at     timestamptz,
  last_error          jsonb,
  last_success_counts jsonb,
  unmatched_lga_names jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(unmatched_lga_names) = 'array'),
  history             jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(history) = 'array')
);
INSERT INTO ingest_state (singleton) VALUES (true);

-- Sessions -----------------------------------------------------------------------------------------------------------

CREATE TABLE sessions (
  -- SHA-256 of the session id, hex (sessionKey): the table does not hold usable session ids.
  sid_hash     text PRIMARY KEY CHECK (sid_hash ~ '^[0-9a-f]{64}$'),
  account_id   text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  -- express-session's cookie settings (path, maxAge, flags): nothing secret.
  cookie       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(cookie) = 'object')
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_last_seen ON sessions (last_seen_at);
CREATE INDEX sessions_created ON sessions (created_at);

-- Change counters ----------------------------------------------------------------------------------------------------

-- One counter per document a DocumentStore serves. A store's update runs
--   UPDATE data_version SET version = version + 1 WHERE name = $1 RETURNING version
-- first in its transaction: the row lock makes concurrent updates of one document run one after the other (as the
-- JSON store's file lock does), and the new number tells every process its cached copy is stale. The trigger
-- announces the new version on channel `data_version` (payload `name:version`); PostgreSQL delivers it only when the
-- transaction commits, which is when DocumentStore.onChange listeners should run.
CREATE TABLE data_version (
  name       text PRIMARY KEY,
  version    bigint NOT NULL DEFAULT 0 CHECK (version >= 0),
  changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO data_version (name) VALUES ('accounts'), ('keys'), ('declarations'), ('ingest_state');

CREATE FUNCTION data_version_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('data_version', NEW.name || ':' || NEW.version);
  RETURN NEW;
END;
$$;
CREATE TRIGGER data_version_changed AFTER UPDATE OF version ON data_version
  FOR EACH ROW EXECUTE FUNCTION data_version_notify();
