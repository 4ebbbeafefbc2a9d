import type { RequestHandler } from 'express';
import type { Logger } from '../logger';
import type { OriginPolicy } from './origin-policy';
import { cookieSession } from './session-middleware';
import type { SessionStore } from './session-store';

/** What the gate reads of the server's runtime (named here rather than imported: runtime.ts depends on sessions/). */
export interface SessionGateRuntime {
  sessions: SessionStore;
  sessionSecret: string;
  absoluteTimeoutMs: number;
  origins: OriginPolicy;
  logger: Logger;
}

/** The cookie session as configured, for the endpoints that run behind it (never the check). */
export function sessionGate(runtime: SessionGateRuntime): RequestHandler[] {
  return cookieSession({
    store: runtime.sessions,
    secret: runtime.sessionSecret,
    absoluteTimeoutMs: runtime.absoluteTimeoutMs,
    origins: runtime.origins,
    logger: runtime.logger,
  });
}
