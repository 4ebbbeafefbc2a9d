-- Single sign-on (issue #38): what a sign-in must remember between sending the browser to the identity provider and
-- its coming back, on whichever instance it comes back to (without Redis; with it, Redis keeps them). A flow is taken
-- once (DELETE … RETURNING); a one-time key (a SAML assertion ID) is inserted once. Rows past their time are ignored
-- and deleted by the next write, so the tables hold only flows still pending.

-- A flow's id is the SHA-256 (hex) of its state: the state came in a URL, the table never holds it as it is.
CREATE TABLE sso_flows (
  id         text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{64}$'),
  flow       jsonb NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sso_flows_expires ON sso_flows (expires_at);

-- The keys are SHA-256 (hex) of what was offered: an assertion ID is the IdP's text, of any length.
CREATE TABLE sso_once (
  key        text PRIMARY KEY CHECK (key ~ '^[0-9a-f]{64}$'),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sso_once_expires ON sso_once (expires_at);
