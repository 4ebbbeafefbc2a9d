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
    }
  | {
      kind: 'saml';
      organisationId: string;
      /** The ID of the AuthnRequest we sent: a response's InResponseTo must name it; the flow's id is it. */
      requestId: string;
      returnTo: string;
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
