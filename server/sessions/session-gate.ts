import type { RequestHandler } from 'express';
import type { Logger } from '../logger';
import type { OriginPolicy } from './origin-policy';
import { cookieSession } from './session-middleware';
import type { SessionStore } from './session-store';

/** What the cookie session is made of: the store, the secret its cookies are signed with, and the Origin rules. */
export interface SessionGateDeps {
  sessions: SessionStore;
  secret: string;
  absoluteTimeoutMs: number;
  origins: OriginPolicy;
  logger: Logger;
}

/** The cookie session as configured, for the endpoints that run behind it (never the check). */
export function sessionGate({
  sessions,
  secret,
  absoluteTimeoutMs,
  origins,
  logger,
}: SessionGateDeps): RequestHandler[] {
  return cookieSession({ store: sessions, secret, absoluteTimeoutMs, origins, logger });
}
