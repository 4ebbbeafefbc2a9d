-- Single sign-on is audited (issue #38): its settings' changes, each sign-in by it (and each refusal, with the reason),
-- people who joined or were linked by it, and an owner's password sign-in while single sign-on is required.
ALTER TABLE audit_events
  ADD COLUMN sso_provider text CHECK (sso_provider IN ('microsoft', 'google', 'oidc', 'saml')),
  DROP CONSTRAINT audit_events_event_check,
  ADD CONSTRAINT audit_events_event_check CHECK (event IN (
    'account_created', 'login', 'login_failed', 'logout', 'key_generated', 'key_regenerated', 'key_revoked',
    'subscription_changed', 'member_added', 'member_role_changed', 'member_removed', 'invitation_created',
    'invitation_resent', 'invitation_revoked', 'invitation_accepted', 'password_reset_requested', 'password_reset',
    'email_verified', 'catchment_saved', 'webhook_set', 'webhook_replaced', 'webhook_removed', 'webhook_tested',
    'organisation_renamed', 'sso_settings_changed', 'sso_settings_removed', 'sso_sign_in', 'sso_sign_in_refused',
    'sso_joined', 'sso_linked', 'break_glass_sign_in'));
