// The session references the account by id and nothing else (no email, no roles, no key material).
declare module 'express-session' {
  interface SessionData {
    accountId: string;
  }
}

export {};
