import { describe, expect, it } from 'vitest';
import type { ActivityEvent } from '../../../shared/api/activity';
import { activityWords } from '../../../console/src/pages/activity/ActivityPage';

const event = (fields: Partial<ActivityEvent>): ActivityEvent => ({
  at: '2026-11-02T00:00:00.000Z',
  event: 'login',
  source: 'web',
  actor: 'manager@bondi.example',
  member_email: null,
  role: null,
  key_prefix: null,
  reason: null,
  subscription: null,
  ...fields,
});

describe("the Activity page's words", () => {
  it('says an organisation was renamed with both names, not by its code (issue #36)', () => {
    const renamed = event({
      event: 'organisation_renamed',
      previous_name: 'Bondi',
      organisation_name: 'Bondi Medical',
    });
    expect(activityWords(renamed)).toBe('Renamed the organisation from “Bondi” to “Bondi Medical”');
  });
});

describe("the Activity page's words for single sign-on (issue #38)", () => {
  it('names the provider of each sign-in, refusal and settings change, and a break-glass sign-in as such', () => {
    const words = (fields: Partial<ActivityEvent>) => activityWords(event(fields));
    expect(words({ event: 'sso_sign_in', sso_provider: 'microsoft' })).toBe('Signed in with Microsoft');
    expect(words({ event: 'sso_sign_in', sso_provider: 'saml' })).toBe(
      'Signed in with the practice’s own sign-in (SAML)',
    );
    expect(words({ event: 'sso_sign_in_refused', reason: 'sso_wrong_tenant', sso_provider: 'microsoft' })).toBe(
      'Refused single sign-on: wrong tenant (Microsoft)',
    );
    expect(words({ event: 'sso_sign_in_refused', reason: 'sso_something_new' })).toBe(
      'Refused single sign-on: sso_something_new',
    );
    expect(words({ event: 'sso_joined', role: 'member', sso_provider: 'google' })).toBe(
      'Joined by single sign-on as member (Google)',
    );
    expect(words({ event: 'sso_linked', sso_provider: 'oidc' })).toBe(
      'Linked to single sign-on (the practice’s own sign-in (OpenID Connect))',
    );
    expect(words({ event: 'sso_settings_changed', sso_provider: 'google' })).toBe(
      'Changed single sign-on settings (Google)',
    );
    expect(words({ event: 'sso_settings_removed', sso_provider: 'microsoft' })).toBe(
      'Removed single sign-on (Microsoft)',
    );
    expect(words({ event: 'break_glass_sign_in', sso_provider: 'microsoft' })).toBe(
      'Signed in with a password while single sign-on is required (break-glass)',
    );
    expect(words({ event: 'login_failed', reason: 'sso_required', sso_provider: 'microsoft' })).toBe(
      'Sign-in with a password refused: single sign-on is required (Microsoft)',
    );
    expect(words({ event: 'login_failed', reason: 'invalid_credentials' })).toBe('Sign-in refused (wrong password)');
  });
});
