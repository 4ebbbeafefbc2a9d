import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { startSession } from '../../../server/auth/session-view';

/** A request whose session regenerates, and whose save answers `saveError` (the store out) or succeeds. */
function requestWithSession(saveError?: Error) {
  const session: Record<string, unknown> & { regenerate?: unknown; save?: unknown } = { accountId: 'before' };
  session.regenerate = (done: (err?: unknown) => void) => {
    delete session.accountId;
    done();
  };
  session.save = (done: (err?: unknown) => void) => done(saveError);
  return { req: { session } as unknown as Request, session };
}

describe('startSession', () => {
  it('holds the account id once the session is stored', async () => {
    const { req, session } = requestWithSession();
    await startSession(req, 'acc-1');
    expect(session.accountId).toBe('acc-1');
  });

  it('takes the account id back out when the store cannot keep it, so the answer’s own save signs nobody in', async () => {
    const { req, session } = requestWithSession(new Error('store out'));
    await expect(startSession(req, 'acc-1')).rejects.toThrow('store out');
    expect(session).not.toHaveProperty('accountId');
  });
});
