-- The newest alert queued for each webhook (issue #17): alerts are committed before their webhook delivery is
-- queued, so after a crash in between an instance starting up queues what came after it, and nothing twice.
ALTER TABLE webhooks ADD COLUMN queued_through text CHECK (queued_through IS NULL OR queued_through ~ '^[0-9]+$');
