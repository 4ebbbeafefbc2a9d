-- The order of the records in each document (issue #15).
--
-- The JSON files keep their arrays in order, and the services rely on it: the key a status page shows when no key is
-- active is the last one created (two keys can share a created_at under one clock), and the revoked keys kept in the
-- document are the newest ones per account. Declarations are kept sorted by the ingest. Rows have no order of their
-- own, so each table a document's array lives in gets a position: the document lists its rows by position.
--
-- New rows take the next value of one shared sequence, so appended records sort after every existing row (also after
-- rows a document does not load, such as old revoked keys). When a write reorders a document, its store gives the
-- rows fresh values from the same sequence in the new order. Positions only order the rows of one table; gaps and the
-- values themselves mean nothing.

CREATE SEQUENCE document_position AS bigint;

ALTER TABLE accounts ADD COLUMN position bigint NOT NULL DEFAULT nextval('document_position');
ALTER TABLE subscriptions ADD COLUMN position bigint NOT NULL DEFAULT nextval('document_position');
ALTER TABLE api_keys ADD COLUMN position bigint NOT NULL DEFAULT nextval('document_position');
ALTER TABLE declarations ADD COLUMN position bigint NOT NULL DEFAULT nextval('document_position');

-- The keys document loads each account's newest revoked keys by position.
CREATE INDEX api_keys_account_position ON api_keys (account_id, position);
