import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  checkPostcode,
  seedAccount,
  startTestServer,
  type SeededAccount,
  type TestServer,
} from '../../helpers/test-server';
import { json, SessionClient } from './session-client';

const EXTENSION = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const OTHER_EXTENSION = 'chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba';
const FORBIDDEN = { success: false, error: { code: 'forbidden_origin', message: 'Request origin is not allowed' } };

describe('Origin check and CORS on the cookie-session endpoints (default: any Chrome extension)', () => {
  let server: TestServer;
  let clinic: SeededAccount;
  let client: SessionClient;

  beforeAll(async () => {
    server = await startTestServer();
    clinic = await seedAccount(server.runtime, { withKey: false });
    client = new SessionClient(server.url);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
  });
  afterAll(() => server.close());

  const keyStatus = async () => (await json(await client.get('/api/v1/keys/status'))).data.key.status as string;

  it('refuses a cookie-authenticated POST from another site with 403 forbidden_origin, and changes nothing', async () => {
    for (const origin of ['https://evil.example', 'http://127.0.0.1:1', 'null', 'http://localhost']) {
      for (const path of [
        '/api/v1/keys/generate',
        '/api/v1/keys/regenerate',
        '/api/v1/keys/revoke',
        '/api/v1/auth/logout',
      ]) {
        const res = await client.post(path, { origin });
        expect({ origin, path, status: res.status }).toEqual({ origin, path, status: 403 });
        expect(await json(res)).toEqual(FORBIDDEN);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      }
    }
    expect(await keyStatus()).toBe('none');
    // Logout was refused too: the session still works.
    expect((await json(await client.get('/api/v1/auth/session'))).data.authenticated).toBe(true);
  });

  it('refuses a POST without Origin that Fetch Metadata marks as cross-site or same-site', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const res = await client.post('/api/v1/keys/generate', { origin: null, headers: { 'sec-fetch-site': site } });
      expect(res.status).toBe(403);
    }
    expect(await keyStatus()).toBe('none');
  });

  it('refuses a sign-in from another site when the browser already holds a session cookie', async () => {
    const res = await client.login(clinic.email, clinic.password, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('leaves requests without the session cookie alone, whatever their Origin', async () => {
    const stranger = new SessionClient(server.url);
    const login = await stranger.login(clinic.email, clinic.password, { origin: 'https://pms.example' });
    expect(login.status).toBe(200);
    const anonymous = await new SessionClient(server.url).post('/api/v1/keys/generate', {
      origin: 'https://evil.example',
    });
    expect(anonymous.status).toBe(401);
    expect((await json(anonymous)).error.code).toBe('unauthenticated');
  });

  it('accepts the server’s own origin, a request without Origin (not a browser), and a Chrome extension', async () => {
    expect((await client.post('/api/v1/keys/generate')).status).toBe(201);
    expect((await client.post('/api/v1/keys/regenerate', { origin: null })).status).toBe(201);
    const fromExtension = await client.post('/api/v1/keys/regenerate', { origin: EXTENSION });
    expect(fromExtension.status).toBe(201);
    expect(fromExtension.headers.get('access-control-allow-origin')).toBe(EXTENSION);
    expect(fromExtension.headers.get('access-control-allow-credentials')).toBe('true');
    expect(fromExtension.headers.get('vary')).toMatch(/Origin/i);
    expect((await client.post('/api/v1/keys/revoke', { origin: OTHER_EXTENSION })).status).toBe(200);
  });

  it('answers the extension’s CORS preflight with credentials, and nobody else’s', async () => {
    const preflight = (origin: string, path = '/api/v1/keys/generate') =>
      fetch(server.url + path, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const ok = await preflight(EXTENSION, '/api/v1/auth/login');
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(EXTENSION);
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ok.headers.get('access-control-allow-methods')).toBe('GET,POST');
    expect(ok.headers.get('access-control-allow-headers')).toBe('Content-Type');

    // The Firefox build's origin (a random UUID per install) is the extension's too.
    const firefox = 'moz-extension://01234567-89ab-cdef-0123-456789abcdef';
    expect((await preflight(firefox, '/api/v1/auth/login')).headers.get('access-control-allow-origin')).toBe(firefox);

    for (const origin of ['https://evil.example', 'null', 'safari-web-extension://ABC-123', 'moz-extension://x']) {
      const refused = await preflight(origin);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(refused.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // A simple GET from a web page gets its answer without CORS headers, so the browser hides it from the page.
    const read = await client.get('/api/v1/keys/status', { origin: 'https://evil.example' });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps the check endpoint free of sessions: no cookie set, no session looked up or touched', async () => {
    const seeded = await seedAccount(server.runtime);
    const cookie = client.jar.headerFor('/api/v1/check-postcode')!;
    expect(cookie).toContain('dte.sid=');
    const get = vi.spyOn(server.runtime.sessions, 'get');
    const touch = vi.spyOn(server.runtime.sessions, 'touch');
    try {
      const res = await checkPostcode(
        server,
        seeded.apiKey,
        { postcode: '4000' },
        { cookie, origin: 'https://evil.example' },
      );
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie()).toEqual([]);
      await res.arrayBuffer();
      expect(get).not.toHaveBeenCalled();
      expect(touch).not.toHaveBeenCalled();
      // The spies do see session traffic on the session paths.
      await client.get('/api/v1/auth/session');
      expect(get).toHaveBeenCalledTimes(1);
    } finally {
      get.mockRestore();
      touch.mockRestore();
    }
  });
});

describe('EXTENSION_ORIGINS narrows the allowed extensions', () => {
  let server: TestServer;
  let client: SessionClient;

  beforeAll(async () => {
    server = await startTestServer({ auth: { extensionOrigins: [EXTENSION] } });
    const clinic = await seedAccount(server.runtime, { withKey: false });
    client = new SessionClient(server.url);
    await client.login(clinic.email, clinic.password);
  });
  afterAll(() => server.close());

  it('accepts the listed extension and refuses another one, with CORS for the listed one only', async () => {
    const refused = await client.post('/api/v1/keys/generate', { origin: OTHER_EXTENSION });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toEqual(FORBIDDEN);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    const accepted = await client.post('/api/v1/keys/generate', { origin: EXTENSION });
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get('access-control-allow-origin')).toBe(EXTENSION);
  });
});
