import { describe, expect, it } from 'vitest';
import { requestOf, type SsoFormState } from '../../../console/src/pages/sso/sso-form-state';
import { FIELD_LABELS } from '../../../console/src/pages/sso/sso-words';

const EMPTY: SsoFormState = {
  provider: 'oidc',
  tenantId: '',
  googleDomain: '',
  issuer: 'https://login.example.com',
  clientId: 'client',
  clientSecret: '',
  idpEntityId: '',
  ssoUrl: '',
  certificate: '',
  domains: 'clinic.com.au',
  defaultRole: 'member',
  requireSso: false,
};

describe('the single sign-on form: what to fix first, named by the label the field has on the page', () => {
  it('names each provider field the contract refuses by its label', () => {
    expect(requestOf({ ...EMPTY, clientId: '' })).toEqual({ problem: `${FIELD_LABELS.client_id}: is required.` });
    expect(requestOf({ ...EMPTY, provider: 'microsoft' })).toEqual({
      problem: `${FIELD_LABELS.tenant_id}: must be a directory (tenant) ID, a GUID.`,
    });
    expect(requestOf({ ...EMPTY, provider: 'google' })).toEqual({
      problem: `${FIELD_LABELS.domain}: must be an e-mail domain such as clinic.com.au.`,
    });
    expect(requestOf({ ...EMPTY, provider: 'saml' })).toEqual({
      problem: `${FIELD_LABELS.idp_entity_id}: is required.`,
    });
  });

  it('asks for a domain first, and sends what was typed once it is whole', () => {
    expect(requestOf({ ...EMPTY, domains: ' ' })).toEqual({
      problem: 'Enter at least one e-mail domain, such as clinic.com.au.',
    });
    expect(requestOf(EMPTY)).toEqual({
      request: {
        connection: { provider: 'oidc', issuer: 'https://login.example.com', client_id: 'client' },
        domains: ['clinic.com.au'],
        default_role: 'member',
        require_sso: false,
      },
    });
  });
});
