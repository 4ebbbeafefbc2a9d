-- Catchments as rows (issue #25): one row per catchment postcode instead of an array per catchment, so that a refresh
-- finds the catchments holding a changed postcode by index, a save touches only its catchment's rows, and no instance
-- holds every catchment and alert in memory. The processed-refresh marker (catchments_meta) is the lock that
-- serialises processing across instances; alerts stay append-only and are read by (subscription_id, id).

CREATE TABLE catchment_entries (
  subscription_id text NOT NULL REFERENCES catchments (subscription_id) ON DELETE CASCADE,
  postcode        text NOT NULL,
  -- Saved since the last processed refresh: that refresh is its baseline, never an alert.
  pending         boolean NOT NULL,
  PRIMARY KEY (subscription_id, postcode)
);
-- The catchments holding a changed postcode, and the distinct postcodes held (a loose index scan).
CREATE INDEX catchment_entries_postcode ON catchment_entries (postcode) INCLUDE (subscription_id, pending);

INSERT INTO catchment_entries (subscription_id, postcode, pending)
SELECT c.subscription_id, p, p = ANY (c.pending)
FROM catchments c, unnest(c.postcodes) AS p
ON CONFLICT DO NOTHING;

ALTER TABLE catchments DROP COLUMN postcodes, DROP COLUMN pending;

-- Retention deletes by age.
CREATE INDEX catchment_alerts_created ON catchment_alerts (created_at);
