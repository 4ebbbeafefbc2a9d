-- Catchment saves and webhook changes are audited (who pointed the alerts somewhere else): a webhook event names the
-- host its URL points to (never the path, which may hold the receiver's token, nor the signing secret), a catchment
-- save the number of postcodes saved.
ALTER TABLE audit_events
  ADD COLUMN webhook_host   text,
  ADD COLUMN postcode_count integer CHECK (postcode_count >= 0),
  DROP CONSTRAINT audit_events_event_check,
  ADD CONSTRAINT audit_events_event_check CHECK (event IN (
    'account_created', 'login', 'login_failed', 'logout', 'key_generated', 'key_regenerated', 'key_revoked',
    'subscription_changed', 'member_added', 'member_role_changed', 'member_removed', 'invitation_created',
    'invitation_resent', 'invitation_revoked', 'invitation_accepted', 'password_reset_requested', 'password_reset',
    'email_verified', 'catchment_saved', 'webhook_set', 'webhook_replaced', 'webhook_removed', 'webhook_tested'));
