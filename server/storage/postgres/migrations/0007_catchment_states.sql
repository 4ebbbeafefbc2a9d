-- Catchment baselines kept once per postcode (issue #17): a postcode's state at the processed refresh is the data's,
-- the same in every catchment holding it, so it moves from each catchment's `baseline` into one row per postcode;
-- each catchment keeps only which of its postcodes await their first processed refresh (`pending`).

CREATE TABLE catchment_postcode_states (
  postcode     text PRIMARY KEY CHECK (postcode ~ '^[0-9]{4}$'),
  is_eligible  boolean NOT NULL,
  -- Ascending (compareAgrn), as the document holds them.
  active_agrns text[] NOT NULL
);

-- What the baselines held: one state per postcode (they agree, having been computed at the same refresh).
INSERT INTO catchment_postcode_states (postcode, is_eligible, active_agrns)
SELECT DISTINCT ON (b.key) b.key, (b.value ->> 'is_eligible')::boolean,
       ARRAY(SELECT jsonb_array_elements_text(b.value -> 'active_agrns'))
FROM catchments c, jsonb_each(c.baseline) b
ORDER BY b.key;

-- A postcode without a baseline was saved after the last processed refresh.
ALTER TABLE catchments ADD COLUMN pending text[] NOT NULL DEFAULT '{}';
UPDATE catchments SET pending = ARRAY(SELECT p FROM unnest(postcodes) AS p WHERE NOT baseline ? p ORDER BY p);
ALTER TABLE catchments DROP COLUMN baseline;
