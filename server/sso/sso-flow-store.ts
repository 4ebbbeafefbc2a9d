/**
 * What a single sign-on must remember between sending the browser to the provider and its coming back — on whichever
 * instance it comes back to: PostgreSQL or Redis when they are set (every instance shares them), else this process.
 */
export type SsoFlow =
  | {
      kind: 'oidc';
      organisationId: string;
      /** The PKCE code verifier (RFC 7636), the nonce the ID token must carry; the state is the flow's id. */
      codeVerifier: string;
      nonce: string;
      /** Where the console goes after the sign-in (a path under /console). */
      returnTo: string;
      /** The SHA-256 of the browser's binding cookie (sso-binding.ts): the callback counts only in that browser. */
      binding: string;
    }
  | {
      kind: 'saml';
      organisationId: string;
      /** The ID of the AuthnRequest we sent: a response's InResponseTo must name it; the flow's id is it. */
      requestId: string;
      returnTo: string;
      binding: string;
    }
  | {
      /**
       * A SAML response the ACS accepted, waiting (a minute, under a random one-time ticket) for the browser to come to
       * the finish by a same-site navigation, which carries the binding cookie the IdP's cross-site post does not.
       */
      kind: 'saml_result';
      organisationId: string;
      /** The address the assertion named, in one of the organisation's claimed domains. */
      email: string;
      returnTo: string;
      binding: string;
    };

export interface SsoFlowStore {
  /** Keeps `flow` under `id` (a random, unguessable value) for `ttlMs`. */
  put(id: string, flow: SsoFlow, ttlMs: number): Promise<void>;
  /**
   * Takes the flow `id`: the first call on any instance gets it, every later one (a replayed callback) gets undefined;
   * so does one after its time.
   */
  take(id: string): Promise<SsoFlow | undefined>;
  /**
   * True the first time `key` is offered within `ttlMs` on any instance, false every later time: a SAML assertion ID
   * is accepted once.
   */
  firstUse(key: string, ttlMs: number): Promise<boolean>;
}

/** A flow store as the storage registry opens it: closed (its connection, its timer) after the services using it. */
export interface OwnedSsoFlowStore extends SsoFlowStore {
  close(): Promise<void>;
}
