import { describe, expect, it } from 'vitest';
import { requestOf, type SsoFormState } from '../../../console/src/pages/sso/sso-form-state';

const VALID_OIDC: SsoFormState = {
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
    expect(requestOf({ ...VALID_OIDC, clientId: '' })).toEqual({ problem: 'Client ID: is required.' });
    expect(requestOf({ ...VALID_OIDC, provider: 'microsoft' })).toEqual({
      problem: 'Directory (tenant) ID: must be a directory (tenant) ID, a GUID.',
    });
    expect(requestOf({ ...VALID_OIDC, provider: 'google' })).toEqual({
      problem: 'Workspace domain: must be an e-mail domain such as clinic.com.au.',
    });
    expect(requestOf({ ...VALID_OIDC, provider: 'saml' })).toEqual({
      problem: 'Identity provider entity ID: is required.',
    });
  });

  it('asks for a domain first, and sends what was typed once it is whole', () => {
    expect(requestOf({ ...VALID_OIDC, domains: ' ' })).toEqual({
      problem: 'Enter at least one e-mail domain, such as clinic.com.au.',
    });
    expect(requestOf(VALID_OIDC)).toEqual({
      request: {
        connection: { provider: 'oidc', issuer: 'https://login.example.com', client_id: 'client' },
        domains: ['clinic.com.au'],
        default_role: 'member',
        require_sso: false,
      },
    });
  });
});
