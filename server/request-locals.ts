import type { Account, Member, Subscription } from './accounts/account-records';
import type { ApiKeyOutcome, CountedCaller } from './keys/require-api-key';

/**
 * What middleware hands on to the handlers after it in `res.locals`, declared once for Express's types (compile time
 * only: nothing here runs).
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express declares Locals in this namespace.
  namespace Express {
    interface Locals {
      /** The signed-in account: set by requireSession on the key endpoints (read with signedInAccount). */
      account?: Account;
      /** The signed-in account's membership (organisation and role): set by requireSession. */
      member?: Member;
      /** The caller's subscription: set by requireSession (the organisation's) and sessionOrApiKey (the key's). */
      subscription?: Subscription;
      /** Who the x-api-key header says is calling: set by identifyApiKey on the check path. */
      apiKey?: ApiKeyOutcome;
      /**
       * Who is counted, by the rate limit and usage: a valid key with an active subscription (identifyApiKey), or an
       * organisation's checks by hand (check-by-hand.ts). Absent: counted by client address.
       */
      caller?: CountedCaller;
      /** The calling key's id, for the request log line: set by identifyApiKey for a valid key. */
      keyId?: string;
      /**
       * A POST /mcp body read ahead and parsed (limitProtocolMessages), handed to the transport so it is not parsed
       * twice; absent when it is not JSON or too large (the transport reads the same bytes and refuses them itself).
       */
      mcpBody?: unknown;
    }
  }
}

export {};
