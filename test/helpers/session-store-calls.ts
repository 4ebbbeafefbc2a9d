import type { SessionData } from 'express-session';
import type { SessionStore } from '../../server/sessions/session-store';

/**
 * express-session's callback API of a session store as promises, the way express-session calls it: `set` with a
 * cookie as express-session writes it, `touch` with the session as loaded (`data`) or with nothing known.
 */
export function storeCalls(store: SessionStore) {
  const call = <T>(fn: (cb: (err?: unknown, value?: T) => void) => void) =>
    new Promise<T | undefined>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
  return {
    get: (sid: string) => call<SessionData | null>((cb) => store.get(sid, cb)),
    set: (sid: string, data: Partial<SessionData> & Record<string, unknown>) =>
      call<void>((cb) =>
        store.set(
          sid,
          { cookie: { originalMaxAge: 1000, path: '/api/v1', httpOnly: true }, ...data } as SessionData,
          cb,
        ),
      ),
    touch: (sid: string, data: Partial<SessionData> = {}) =>
      call<void>((cb) => store.touch!(sid, data as SessionData, () => cb())),
    destroy: (sid: string) => call<void>((cb) => store.destroy(sid, cb)),
  };
}
