import type { SamlProtocol } from './saml-protocol';
import type { SsoFlowStore } from './sso-flow-store';
import type { SsoSignInService } from './sso-sign-in';
import type { SsoSignInRuntime } from './open-sso-sign-in';

/** SAML 2.0 sign-in as the server has it (`runtime.saml`). */
export interface SamlRuntime {
  /** What GET /api/v1/auth/sso/start dispatches a SAML connection to. */
  protocol: SamlProtocol;
  /** Where the ACS finds the AuthnRequest a response answers, and the assertions already accepted. */
  flows: SsoFlowStore;
  /** The end every single sign-on shares. */
  completion: SsoSignInService;
}

/** SAML's part of single sign-on's sign-in: the same flow store and completion as OpenID Connect's. */
export function samlRuntimeOf(signIn: SsoSignInRuntime): SamlRuntime {
  return { protocol: signIn.saml, flows: signIn.flows, completion: signIn.signIn };
}
