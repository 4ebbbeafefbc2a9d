import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtIdp, startOidcIdp, type TestIdp } from '../../helpers/oidc-idp';
import { useRedisServer } from '../../helpers/redis-per-file';
import { TestSamlIdp } from '../../helpers/saml-idp';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from '../auth/session-client';
import { callbackOn, oidcConnection, personAt, refusedTo, signInThrough, ssoPractice, startAt } from './oidc-world';
import { begin, FINISH, postResponse, samlPractice } from './saml-world';
import { ENCRYPTION_KEY } from './sso-world';

// The file's own redis-server, stopped mid-test: single sign-on's flows, its throttle and the sessions live there.
const redis = useRedisServer();

/**
 * A person in the middle of a single sign-on, when this service cannot go on (Redis out): each step a browser
 * navigates to (the start, the provider's callback, SAML's ACS and finish) sends it to the console's sign-in page,
 * which says so in words (`?sso_error=sso_unavailable`), never a page of JSON; an API client still gets the envelope.
 * Signs nobody in, logs no unhandled error, and sign-in works again once Redis is back.
 */
describe("a browser's single sign-on while this service's Redis is out", () => {
  let server: TestServer;
  let idp: TestIdp;
  let samlIdp: TestSamlIdp;

  beforeAll(async () => {
    [idp, samlIdp] = await Promise.all([startOidcIdp(), TestSamlIdp.start()]);
    server = await startTestServer({
      config: {
        REDIS_URL: redis.url,
        SSO_ENCRYPTION_KEY: ENCRYPTION_KEY,
        SESSION_SECRET: 'a session secret of at least 32 characters!',
      },
    });
  });
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await server?.close();
    await idp?.close();
  });

  const interrupted = async (res: Response) => {
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe(refusedTo('sso_unavailable'));
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Nobody signed in: no session cookie set.
    expect(res.headers.getSetCookie().filter((c) => c.startsWith('dte.sid='))).toEqual([]);
  };
  /**
   * Redis started again, and every client of it (the flows, the throttle, the sessions: each reconnects on its own)
   * answering: a whole sign-in works. A fresh address each try, so a try made while Redis was half back spends no
   * later try's starts.
   */
  let tries = 0;
  const redisBackFor = async (domain: string) => {
    await redis.start();
    await waitFor(
      async () => {
        const again = `back${++tries}@${domain}`;
        const { answer } = await signInThrough(server, idp, again, personAt(idp, { email: again }));
        return answer.headers.get('location') === '/console/';
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'single sign-on to work again after Redis restarted' },
    );
  };
  const unhandled = () => server.logs.filter((line) => JSON.parse(line).msg === 'unhandled error');

  it('OpenID Connect: the start and the callback send the browser to the words; a JSON client gets 503', async () => {
    const org = await ssoPractice(server, oidcConnection(idp), { idp });
    const email = `gp@${org.domain}`;
    // A sign-in under way when Redis goes: the provider has signed the person in and sends the browser back.
    const browser = new SessionClient(server.url);
    const callback = await signInAtIdp(await startAt(browser, email), personAt(idp, { email }));

    await redis.stop();
    await interrupted(await callbackOn(browser, callback));
    const start = `/api/v1/auth/sso/start?${new URLSearchParams({ email: `other@${org.domain}` })}`;
    await interrupted(await new SessionClient(server.url).get(start, { origin: null }));
    const api = await new SessionClient(server.url).get(start, {
      origin: null,
      headers: { accept: 'application/json' },
    });
    expect(api.status).toBe(503);
    expect(Number(api.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await json(api)).error.code).toMatch(/^(rate_limit|storage)_unavailable$/);
    expect(unhandled()).toEqual([]);
    expect(server.logs.some((line) => JSON.parse(line).msg === 'single sign-on interrupted')).toBe(true);

    await redisBackFor(org.domain);
  });

  it('a browser that still holds a session cookie (timed out, or signed in): the session gate in front says it in words too', async () => {
    const org = await ssoPractice(server, oidcConnection(idp), { idp });
    const email = `again@${org.domain}`;
    const browser = new SessionClient(server.url);
    const callback = await signInAtIdp(await startAt(browser, email), personAt(idp, { email }));
    // Signed in by password in this browser meanwhile: its dte.sid is read from the store before any route runs.
    expect((await browser.login(org.owner.email, org.owner.password)).status).toBe(200);
    expect(browser.jar.get('dte.sid')).toBeDefined();

    await redis.stop();
    await interrupted(await callbackOn(browser, callback));
    const start = `/api/v1/auth/sso/start?${new URLSearchParams({ email })}`;
    await interrupted(await browser.get(start, { origin: null }));
    await interrupted(await browser.get(`${FINISH}?ticket=${'b'.repeat(43)}`, { origin: null }));
    // A JSON client with the same cookie: the session gate's own envelope.
    const api = await browser.get(start, { origin: null, headers: { accept: 'application/json' } });
    expect(api.status).toBe(503);
    expect((await json(api)).error.code).toBe('session_unavailable');
    expect(unhandled()).toEqual([]);
    await redisBackFor(org.domain);
  });

  it('SAML: the ACS and the finish send the browser to the words', async () => {
    const practice = await samlPractice(server, samlIdp);
    const browser = new SessionClient(server.url);
    const request = await begin(browser, practice);
    const response = samlIdp.answer(request, `gp@${practice.domain}`);

    await redis.stop();
    await interrupted(await postResponse(browser, response));
    await interrupted(await browser.get(`${FINISH}?ticket=${'a'.repeat(43)}`, { origin: null }));
    expect(unhandled()).toEqual([]);
    await redis.start();
  });
});
