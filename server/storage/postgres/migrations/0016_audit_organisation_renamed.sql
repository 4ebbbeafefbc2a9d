-- An organisation's rename is audited (issue #36): the name it had and the name it has since.
ALTER TABLE audit_events
  ADD COLUMN previous_name     text,
  ADD COLUMN organisation_name text,
  DROP CONSTRAINT audit_events_event_check,
  ADD CONSTRAINT audit_events_event_check CHECK (event IN (
    'account_created', 'login', 'login_failed', 'logout', 'key_generated', 'key_regenerated', 'key_revoked',
    'subscription_changed', 'member_added', 'member_role_changed', 'member_removed', 'invitation_created',
    'invitation_resent', 'invitation_revoked', 'invitation_accepted', 'password_reset_requested', 'password_reset',
    'email_verified', 'catchment_saved', 'webhook_set', 'webhook_replaced', 'webhook_removed', 'webhook_tested',
    'organisation_renamed'));
