import { describe, expect, it, vi } from 'vitest';
import { consoleFailureWords } from '../../../console/src/failure-words';
import { accountApi } from '../../../ui/api/account-api';
import type { Fetch } from '../../../ui/api/server-request';

const SERVER = 'https://eligibility.example.test';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('the sign-in form’s first step: how an address signs in (issue #38)', () => {
  it('asks GET /api/v1/auth/sso/discover with the address, and makes the start URL absolute on that server', async () => {
    const fetch = vi.fn<Fetch>(async () =>
      json(200, {
        success: true,
        data: {
          method: 'sso',
          provider: 'microsoft',
          label: 'Microsoft',
          start_url: '/api/v1/auth/sso/start?email=ann%40clinic.example',
          password_allowed: false,
        },
      }),
    );
    const result = await accountApi.discoverSignIn(fetch, SERVER, 'ann@clinic.example');
    expect(fetch.mock.calls[0]![0]).toBe(`${SERVER}/api/v1/auth/sso/discover?email=ann%40clinic.example`);
    expect(result).toEqual({
      ok: true,
      data: {
        method: 'sso',
        provider: 'microsoft',
        label: 'Microsoft',
        start_url: `${SERVER}/api/v1/auth/sso/start?email=ann%40clinic.example`,
        password_allowed: false,
      },
    });
  });

  it('answers a server without the route as a failure (the form then shows the password)', async () => {
    const fetch = vi.fn<Fetch>(async () =>
      json(404, { success: false, error: { code: 'not_found', message: 'Not found' } }),
    );
    expect(await accountApi.discoverSignIn(fetch, SERVER, 'ann@clinic.example')).toMatchObject({ ok: false });
  });
});

describe('a password refused because the practice requires single sign-on', () => {
  const refused = (details?: string[]) =>
    consoleFailureWords(
      {
        ok: false,
        code: 'sso_required',
        message: 'Your organisation signs in with single sign-on: …',
        status: 403,
        details,
      },
      'origin words',
    );

  it('says which sign-in to use, in the words of its button', () => {
    expect(refused(['microsoft'])).toBe('Your practice signs in with Microsoft: use Continue with Microsoft.');
    expect(refused(['google'])).toBe('Your practice signs in with Google: use Continue with Google.');
    expect(refused(['saml'])).toBe(
      "Your practice signs in with its own sign-in: use Continue with your organisation's sign-in.",
    );
    expect(refused()).toBe('Your practice signs in with single sign-on: use Continue with your practice’s sign-in.');
  });
});
