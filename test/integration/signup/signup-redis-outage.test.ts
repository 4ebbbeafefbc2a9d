import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRedisServer } from '../../helpers/redis-per-file';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from '../auth/session-client';
import { expectError, PASSWORD, signUp, signUpAndSignIn, signupEmail } from './signup-world';

// The file's own redis-server, stopped mid-test: the throttle and the sessions live there (REDIS_URL).
const redis = useRedisServer();

/**
 * Sign-up and a reset request are throttled in Redis when it is configured: while Redis is out both are refused with
 * 503 rate_limit_unavailable and Retry-After — never let through uncounted, never a 500 — the server keeps answering,
 * and both work again by themselves once Redis is back.
 */
describe('sign-up while Redis is out', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      config: { REDIS_URL: redis.url, SIGNUP: 'on', SESSION_SECRET: 'a session secret of at least 32 characters!' },
    });
  });
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await server?.close();
  });

  it('answers 503 rate_limit_unavailable with Retry-After, creates nothing, and recovers', async () => {
    const before = signupEmail('before');
    expect((await signUp(server, { practice_name: 'Before', email: before, password: PASSWORD })).res.status).toBe(202);

    await redis.stop();
    const during = signupEmail('during');
    const refused = (await signUp(server, { practice_name: 'During', email: during, password: PASSWORD })).res;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectError(refused, 503, 'rate_limit_unavailable');
    expect(server.runtime.accounts.findByEmail(during)).toBeUndefined();
    const reset = await new SessionClient(server.url).post('/api/v1/auth/password-reset/request', {
      body: { email: before },
    });
    await expectError(reset, 503, 'rate_limit_unavailable');
    // Still serving: what needs no Redis answers.
    expect((await fetch(`${server.url}/api/v1/signup`)).status).toBe(200);
    expect(server.logs.filter((l) => JSON.parse(l).msg === 'unhandled error')).toEqual([]);

    await redis.start();
    await waitFor(
      async () =>
        (await signUp(server, { practice_name: 'During', email: during, password: PASSWORD })).res.status === 202,
      { timeoutMs: 10_000, intervalMs: 200, what: 'sign-up to work again after Redis restarted' },
    );
    await server.runtime.signup.drain();
    expect(server.runtime.accounts.findByEmail(during)).toBeDefined();
    const client = await signUpAndSignIn(server, {
      practice_name: 'After',
      email: signupEmail('after'),
      password: PASSWORD,
    });
    expect((await json(await client.get('/api/v1/auth/session'))).data.authenticated).toBe(true);
  });
});
