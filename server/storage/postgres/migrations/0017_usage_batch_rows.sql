-- Rows checked in lists (POST /api/v1/check-batch, issue #37), counted apart from the requests themselves.
ALTER TABLE key_usage ADD COLUMN batch_rows integer NOT NULL DEFAULT 0 CHECK (batch_rows >= 0);
