-- Webhook deliveries read per operation (issue #25): a worker's poll leases the due ones by index instead of every
-- instance holding the whole queue in memory, so the poll that finds nothing due reads nothing.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at);
