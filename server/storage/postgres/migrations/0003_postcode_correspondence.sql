-- The POSTCODE_LGA_URL correspondence cache (issue #15): what DATA_DIR/postcode-lga-correspondence.json holds without
-- DATABASE_URL, shared here by every instance and `npm run ingest`, so that whichever finds the copy missing or older
-- than its maximum age fetches it and the others load that copy (and the ingest matches LGA names to codes with the
-- same correspondence the postcodes are answered from).
--
-- One row, read and written whole (postgres-correspondence-cache.ts); never queried inside. The rows are one jsonb
-- array of {postcode, lga_code, lga_name, ratio} in the shape correspondence-cache.ts's zod schema checks on read.
CREATE TABLE postcode_correspondence (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  -- POSTCODE_LGA_URL as configured when the copy was read: a copy of another source is not used.
  source      text,
  fetched_at  timestamptz,
  layout      text CHECK (layout IN ('2018', '2021+')),
  lga_edition text,
  rows        jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(rows) = 'array')
);
INSERT INTO postcode_correspondence (singleton) VALUES (true);

INSERT INTO data_version (name) VALUES ('postcode_correspondence');
