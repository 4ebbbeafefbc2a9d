import { describe, expect, it } from 'vitest';
import { parseSsoFlow } from '../../../server/sso/sso-flow-json';

describe('a flow as the shared stores keep it', () => {
  const oidc = { kind: 'oidc', organisationId: 'org-1', codeVerifier: 'v', nonce: 'n', returnTo: '/console/' };

  it('comes back with the hash of its browser binding, from JSON text or an object', () => {
    const bound = { ...oidc, binding: 'hash' };
    expect(parseSsoFlow(JSON.stringify(bound))).toEqual(bound);
    const result = {
      kind: 'saml_result',
      organisationId: 'org-1',
      email: 'a@b.au',
      returnTo: '/console/',
      binding: 'h',
    };
    expect(parseSsoFlow(result)).toEqual(result);
  });

  it('is no flow when kept before flows were bound to their browser (no binding, or an empty one)', () => {
    expect(parseSsoFlow(JSON.stringify(oidc))).toBeUndefined();
    expect(
      parseSsoFlow({ kind: 'saml', organisationId: 'org-1', requestId: '_r', returnTo: '/console/' }),
    ).toBeUndefined();
    expect(parseSsoFlow({ ...oidc, binding: '' })).toBeUndefined();
  });
});
