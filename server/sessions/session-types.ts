// The session references the account by id and nothing else (no email, no roles, no key material).
declare module 'express-session' {
  interface SessionData {
    accountId: string;
    /**
     * Set by the shared stores (Redis, PostgreSQL) when they load a session: when its idle deadline was last written
     * (ms, server clock), so that `touch` knows without a round trip whether a write is due. Never stored from here:
     * the stores keep their own times.
     */
    lastSeenAt?: number;
  }
}

export {};
