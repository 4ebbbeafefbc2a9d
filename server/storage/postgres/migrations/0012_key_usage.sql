-- Checks per API key per Sydney day (issue #26): answered, refused (4xx) and rate-limited. Each instance counts in
-- memory and adds its counts every few seconds (INSERT … ON CONFLICT DO UPDATE SET n = n + excluded.n), so the sums
-- are exact however many instances serve. Kept 400 days (the purge job deletes older days).

CREATE TABLE key_usage (
  subscription_id text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  -- No foreign key to api_keys: a key's usage outlives the key's record (revoked keys are archived).
  key_id          text NOT NULL CHECK (key_id <> ''),
  day             date NOT NULL,
  answered        integer NOT NULL DEFAULT 0 CHECK (answered >= 0),
  refused         integer NOT NULL DEFAULT 0 CHECK (refused >= 0),
  rate_limited    integer NOT NULL DEFAULT 0 CHECK (rate_limited >= 0),
  PRIMARY KEY (key_id, day)
);
CREATE INDEX key_usage_subscription_day ON key_usage (subscription_id, day);
CREATE INDEX key_usage_day ON key_usage (day);
