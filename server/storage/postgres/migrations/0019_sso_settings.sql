-- Single sign-on settings (issue #38): what DATA_DIR/sso.json holds without DATABASE_URL, shared here by every
-- instance and read on every request (an owner's change holds on all of them at once).
--
-- One row of settings per organisation. `connection` is what the owner entered for the provider, as JSON; an OpenID
-- Connect client secret in it is sealed (AES-256-GCM under SSO_ENCRYPTION_KEY), never in clear.
CREATE TABLE sso_settings (
  organisation_id text PRIMARY KEY REFERENCES organisations (id) ON DELETE CASCADE,
  provider        text NOT NULL CHECK (provider IN ('microsoft', 'google', 'oidc', 'saml')),
  connection      jsonb NOT NULL CHECK (jsonb_typeof(connection) = 'object' AND connection ->> 'provider' = provider),
  default_role    text NOT NULL CHECK (default_role IN ('member', 'admin')),
  require_sso     boolean NOT NULL,
  updated_at      timestamptz NOT NULL,
  updated_by      text
);

-- The e-mail domains each organisation claims. The domain is the primary key: the database itself keeps a domain to
-- one organisation, whichever instance two owners claim it on at once.
CREATE TABLE sso_domains (
  domain          text PRIMARY KEY CHECK (domain <> '' AND domain = lower(domain) AND length(domain) <= 253),
  organisation_id text NOT NULL REFERENCES sso_settings (organisation_id) ON DELETE CASCADE,
  -- The order the owner listed them in.
  ordinal         integer NOT NULL
);
CREATE INDEX sso_domains_organisation ON sso_domains (organisation_id, ordinal);

-- People the team removed (their account goes with the removal), by e-mail: single sign-on refuses them until they
-- accept a new invitation to the organisation. Written in the removal's and the acceptance's own transactions.
CREATE TABLE sso_departures (
  organisation_id text NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  email           text NOT NULL CHECK (email <> '' AND email = lower(email)),
  removed_at      timestamptz NOT NULL,
  PRIMARY KEY (organisation_id, email)
);
