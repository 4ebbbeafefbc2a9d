-- Catchments and their alerts (issue #17): what DATA_DIR/catchments.json holds without DATABASE_URL, as one document
-- (postgres-catchment-store.ts) so that processing a refresh — new alerts, new baselines, the processed-refresh
-- marker — is one transaction, serialised with every other writer by the data_version row 'catchments'.
--
-- No foreign keys to subscriptions: the rows are written only through the document, and a cascade from another
-- document's table would change this one behind its data_version.

-- One row per subscription that saved a catchment.
CREATE TABLE catchments (
  subscription_id text PRIMARY KEY CHECK (subscription_id <> ''),
  -- Distinct, ascending.
  postcodes       text[] NOT NULL,
  updated_at      timestamptz NOT NULL,
  -- postcode → {is_eligible, active_agrns}: each postcode's state at the refresh catchments_meta names.
  baseline        jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(baseline) = 'object')
);

-- Alerts, kept 90 days (older ones are deleted by the writes of the document). Ids are global and increasing.
CREATE TABLE catchment_alerts (
  id              bigint PRIMARY KEY,
  subscription_id text NOT NULL CHECK (subscription_id <> ''),
  created_at      timestamptz NOT NULL,
  kind            text NOT NULL
                  CHECK (kind IN ('newly_eligible', 'no_longer_eligible', 'declaration_added', 'declaration_ended')),
  postcode        text NOT NULL,
  lga_name        text NOT NULL,
  agrn            text NOT NULL,
  title           text NOT NULL,
  text            text NOT NULL
);
CREATE INDEX catchment_alerts_subscription ON catchment_alerts (subscription_id, id);

CREATE TABLE catchments_meta (
  singleton         boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  -- The declarations' last_updated the baselines were computed from, as the ISO text the document holds.
  processed_refresh text,
  next_alert_id     bigint NOT NULL DEFAULT 1 CHECK (next_alert_id > 0)
);
INSERT INTO catchments_meta (singleton) VALUES (true);

INSERT INTO data_version (name) VALUES ('catchments');
