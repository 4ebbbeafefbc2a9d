// oidc-provider ships no types: what the tests' identity provider (oidc-idp.ts) uses of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ProviderAccount {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(
      issuer: string,
      configuration: Record<string, unknown> & {
        findAccount(ctx: unknown, id: string): Promise<ProviderAccount | undefined>;
      },
    );
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  }
}
