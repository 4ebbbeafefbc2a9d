import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestAlerts } from '../../../extension/alerts/alerts-request';
import { requestCheck } from '../../../extension/background/check-request';
import { probeServer } from '../../../extension/background/server-probe';
import { accountApi } from '../../../ui/api/account-api';
import { catchmentApi } from '../../../ui/api/catchment-api';
import type { Fetch } from '../../../ui/api/server-request';
import { leaked, startRedirectingServers, type RedirectingServers } from '../../helpers/redirecting-server';

const KEY = 'sk_live_redirected_key_0123456789abcdef';
const PASSWORD = 'correct horse battery staple';

// Node's fetch, as the browser's: it follows redirects by default and keeps a custom header (x-api-key) and a 307's
// body on the way to another host.
const realFetch: Fetch = (input, init) => fetch(input, init);

let servers: RedirectingServers;

beforeAll(async () => {
  servers = await startRedirectingServers();
});

afterAll(() => servers?.close());

beforeEach(() => {
  servers.received.length = 0;
});

/** Nothing reached the other host (so neither the key nor the password did). */
function expectNothingSentOn(): void {
  expect(leaked(servers.received, [KEY, PASSWORD])).toEqual([]);
  expect(servers.received).toEqual([]);
}

describe.each([307, 308, 301, 302])('the clinic’s server answers %i to another host', (status) => {
  beforeEach(() => {
    servers.status = status;
  });

  it('a check sends nothing on, and the badge says the address moved (not the other host’s answer)', async () => {
    const outcome = await requestCheck(realFetch, servers.url, KEY, '2000');
    expect(outcome).toMatchObject({ ok: false, problem: 'redirected' });
    expectNothingSentOn();
  });

  it('the alerts poll sends nothing on', async () => {
    expect(await requestAlerts(realFetch, servers.url, KEY, null)).toEqual({ ok: false, problem: 'redirected' });
    expectNothingSentOn();
  });

  it('sign-in sends the password nowhere else and says why in words, without a status code', async () => {
    const result = await accountApi.login(realFetch, servers.url, { email: 'pm@clinic.test', password: PASSWORD });
    expect(result).toMatchObject({ ok: false, code: 'redirected' });
    expect(!result.ok && result.message).toMatch(/redirects elsewhere/);
    expect(!result.ok && result.message).not.toMatch(/\b3\d\d\b/);
    expectNothingSentOn();
  });

  it('key and catchment calls over the session follow no redirect either', async () => {
    expect(await accountApi.regenerateKey(realFetch, servers.url)).toMatchObject({ ok: false, code: 'redirected' });
    expect(await catchmentApi.save(realFetch, servers.url, ['2000'])).toMatchObject({ ok: false, code: 'redirected' });
    expectNothingSentOn();
  });

  it('the server probe does not take the other host’s /healthz for the clinic’s server', async () => {
    expect(await probeServer(realFetch, servers.url)).toBe('redirected');
    expectNothingSentOn();
  });
});
