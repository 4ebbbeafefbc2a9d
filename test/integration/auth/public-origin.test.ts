import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../../helpers/spawn-server';
import { tempDir } from '../../helpers/temp-dir';
import {
  openDataDir,
  seedAccount,
  startTestServer,
  type SeededAccount,
  type TestServer,
} from '../../helpers/test-server';
import { json, SessionClient } from './session-client';

const FORBIDDEN = { success: false, error: { code: 'forbidden_origin', message: 'Request origin is not allowed' } };

/**
 * One request over a raw socket connection to the test server, so that the Host header can say anything (fetch
 * always sends the URL's own host).
 */
function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port: Number(port), method, path, headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.end();
  });
}

describe('the Origin check compares with the configured public origins, never the request’s own Host', () => {
  let server: TestServer;
  let clinic: SeededAccount;
  let client: SessionClient;
  let sid: string;

  beforeAll(async () => {
    server = await startTestServer();
    clinic = await seedAccount(server.runtime, { withKey: false });
    client = new SessionClient(server.url);
    expect((await client.login(clinic.email, clinic.password)).status).toBe(200);
    sid = client.sessionCookie!;
  });
  afterAll(() => server.close());

  const keyStatus = async () => (await json(await client.get('/api/v1/keys/status'))).data.key.status as string;

  it('refuses Origin: http://evil.example sent with Host: evil.example and a valid session cookie', async () => {
    for (const [host, origin] of [
      ['evil.example', 'http://evil.example'],
      ['evil.example:8080', 'http://evil.example:8080'],
      [new URL(server.url).host.replace('127.0.0.1', 'evil.example'), server.url.replace('127.0.0.1', 'evil.example')],
    ]) {
      const res = await rawRequest(server.url, 'POST', '/api/v1/keys/generate', {
        host: host!,
        origin: origin!,
        cookie: `dte.sid=${sid}`,
      });
      expect({ origin, status: res.status }).toEqual({ origin, status: 403 });
      expect(JSON.parse(res.body)).toEqual(FORBIDDEN);
    }
    expect(await keyStatus()).toBe('none');
  });

  it('applies the check to every spelling of the session cookie that the session middleware reads', async () => {
    const spellings = [
      `dte.sid =${sid}`,
      `dte.sid\t=${sid}`,
      `  dte.sid = ${sid}`,
      `theme=dark;dte.sid =${sid}`,
      `dte.sid="${sid}"`,
    ];
    for (const cookie of spellings) {
      // The session middleware reads each of them as the signed-in session...
      const session = await fetch(`${server.url}/api/v1/auth/session`, { headers: { cookie } });
      expect({ cookie, authenticated: (await json(session)).data.authenticated }).toEqual({
        cookie,
        authenticated: true,
      });
      // ...so a POST carrying it from another site is refused, as with the plain spelling.
      const res = await fetch(`${server.url}/api/v1/keys/generate`, {
        method: 'POST',
        headers: { cookie, origin: 'https://evil.example' },
      });
      expect({ cookie, status: res.status }).toEqual({ cookie, status: 403 });
      expect(await json(res)).toEqual(FORBIDDEN);
    }
    expect(await keyStatus()).toBe('none');
  });

  it('without PUBLIC_URL (development) accepts the origins the server listens on: 127.0.0.1 and localhost at its port', async () => {
    const port = new URL(server.url).port;
    // Host says 127.0.0.1 here; the page was opened as localhost. Both name this server.
    expect((await client.post('/api/v1/keys/generate', { origin: `http://localhost:${port}` })).status).toBe(201);
    expect((await client.post('/api/v1/keys/regenerate', { origin: `http://127.0.0.1:${port}` })).status).toBe(201);
    for (const origin of [`https://127.0.0.1:${port}`, `http://localhost:${Number(port) + 1}`, 'http://localhost']) {
      expect((await client.post('/api/v1/keys/revoke', { origin })).status).toBe(403);
    }
  });
});

describe('PUBLIC_URL names the only web origins allowed', () => {
  let server: TestServer;
  let client: SessionClient;

  beforeAll(async () => {
    server = await startTestServer({
      auth: { publicOrigins: ['https://clinic.example', 'https://dte.clinic.example:8443'] },
    });
    const clinic = await seedAccount(server.runtime, { withKey: false });
    client = new SessionClient(server.url);
    expect((await client.login(clinic.email, clinic.password, { origin: null })).status).toBe(200);
  });
  afterAll(() => server.close());

  it('accepts the listed origins and an extension, whatever Host says, and refuses the rest', async () => {
    expect((await client.post('/api/v1/keys/generate', { origin: 'https://clinic.example' })).status).toBe(201);
    expect((await client.post('/api/v1/keys/regenerate', { origin: 'https://dte.clinic.example:8443' })).status).toBe(
      201,
    );
    expect(
      (await client.post('/api/v1/keys/regenerate', { origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop' }))
        .status,
    ).toBe(201);
    // The address it happens to be reached at is not a configured origin.
    for (const origin of [server.url, 'http://clinic.example', 'https://clinic.example:8443', 'https://evil.example']) {
      const res = await client.post('/api/v1/keys/revoke', { origin });
      expect({ origin, status: res.status }).toEqual({ origin, status: 403 });
    }
    const spoofed = await rawRequest(server.url, 'POST', '/api/v1/keys/revoke', {
      host: 'evil.example',
      origin: 'http://evil.example',
      cookie: client.jar.headerFor('/api/v1/keys/revoke')!,
    });
    expect(spoofed.status).toBe(403);
  });
});

describe('PUBLIC_URL in the environment of the real process', () => {
  it('reaches the Origin check', async () => {
    const dataDir = await tempDir('dte-public-url-');
    const data = await openDataDir(dataDir);
    const clinic = await seedAccount(data, { withKey: false });
    await data.close();
    const { server, url } = await startServerProcess({
      DATA_DIR: dataDir,
      PUBLIC_URL: 'https://clinic.example',
      DISASTERASSIST_BASE_URL: 'http://127.0.0.1:9',
      DRFA_CSV_URL: 'http://127.0.0.1:9/drfa.csv',
    });
    try {
      const client = new SessionClient(url);
      expect((await client.login(clinic.email, clinic.password, { origin: null })).status).toBe(200);
      expect((await client.post('/api/v1/keys/generate', { origin: url })).status).toBe(403);
      expect((await client.post('/api/v1/keys/generate', { origin: 'https://clinic.example' })).status).toBe(201);
    } finally {
      await server.kill();
    }
  });
});
