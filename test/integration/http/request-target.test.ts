import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERRORS } from '../../../shared/api/errors';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';
import { parseResponse, rawExchange } from './raw-http';

/**
 * Request targets the routes cannot take as they are (issue #35, 7 and 13): a path whose percent-escape does not
 * decode, and the absolute form of a target (`GET http://evil.test/console`).
 */
const MALFORMED = { code: 'malformed_request', message: API_ERRORS.malformed_request.message };
const BAD_ESCAPES = ['%ZZ', '%E0%A4%A', '%FF'];
const PASSWORD = 'correct horse battery staple';

describe('request targets', () => {
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    server = await startTestServer();
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Every operation of the OpenAPI document whose path has a parameter, the parameters filled with `value`. */
  async function parameterisedOperations(value: string): Promise<{ method: string; path: string }[]> {
    const document = (await json(await fetch(`${server.url}/api/v1/openapi.json`))) as {
      paths: Record<string, Record<string, unknown>>;
    };
    return Object.entries(document.paths)
      .filter(([path]) => path.includes('{'))
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => ({
          method: method.toUpperCase(),
          path: path.replace(/\{[^}]+\}/g, value),
        })),
      );
  }

  const noServerError = () => {
    const errors = server.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
    expect(server.logs.join('\n')).not.toContain('URIError');
  };

  it('an undecodable percent-escape in any path parameter → 400 malformed_request, with or without a session', async () => {
    const email = `target-${process.pid}@example.test`;
    await server.runtime.accounts.createAccount(email, PASSWORD);
    const owner = new SessionClient(server.url);
    expect((await owner.login(email, PASSWORD)).status).toBe(200);
    const anonymous = new SessionClient(server.url);
    const operations = (await Promise.all(BAD_ESCAPES.map(parameterisedOperations))).flat();
    // The routes named in the issue, so that a document that lost them cannot make this pass.
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'DELETE /api/v1/team/invitations/%ZZ',
        'POST /api/v1/team/invitations/%ZZ/resend',
        'POST /api/v1/team/members/%ZZ/reset-link',
      ]),
    );
    for (const client of [anonymous, owner]) {
      for (const { method, path } of operations) {
        const res = await client.request(method, path, method === 'GET' ? {} : { body: {} });
        expect(res.status, `${method} ${path}`).toBe(400);
        expect((await json(res)).error, `${method} ${path}`).toEqual(MALFORMED);
      }
    }
    noServerError();
  });

  it.each(['/console/%ZZ', '/console/assets/%ZZ.js', '/docs/%ZZ', '/%ZZ', '/api/v1/%E0%A4%A', '/healthz/%ZZ?x=%ZZ'])(
    '%s → 400 malformed_request (the console, the documentation, anything else)',
    async (path) => {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(400);
      expect((await json(res)).error).toEqual(MALFORMED);
      noServerError();
    },
  );

  it('a well-formed escape and a bad one in the query alone are routed as usual', async () => {
    expect((await fetch(`${server.url}/healthz?x=%ZZ`)).status).toBe(200);
    const res = await fetch(`${server.url}/api/v1/team/invitations/%E2%82%AC`, { method: 'DELETE' });
    expect((await json(res)).error.code).toBe('unauthenticated');
  });

  /** One raw request with an absolute-form target; its parsed response. */
  async function absolute(method: string, target: string) {
    const exchange = await rawExchange(port, [
      `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
    ]);
    const response = parseResponse(exchange.received);
    expect(response, exchange.received).toBeDefined();
    return response!;
  }

  it.each([
    ['http://evil.test/console', 301, '/console/'],
    ['http://evil.test/console?x=1', 301, '/console/?x=1'],
    ['HTTPS://evil.test:8443/console?next=//evil.test', 301, '/console/?next=//evil.test'],
    ['http://evil.test/docs', 301, '/docs/'],
    ['http://evil.test/', 302, '/console/'],
    ['http://evil.test', 302, '/console/'],
    ['http://evil.test?x=1', 302, '/console/'],
  ])('GET %s (absolute form) → %i to %s on this server, never another host', async (target, status, location) => {
    const response = await absolute('GET', target);
    expect(response.status).toBe(status);
    expect(response.headers['location']).toBe(location);
  });

  it('an absolute-form target is routed by its path and query', async () => {
    expect((await absolute('GET', 'http://evil.test/healthz')).status).toBe(200);
    const refused = await absolute('DELETE', 'http://evil.test/api/v1/team/invitations/%ZZ');
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error).toEqual(MALFORMED);
    // The request log has the path, not the other host.
    const logged = server.logs.filter((line) => line.includes('"path":"/healthz"'));
    expect(logged.length).toBeGreaterThan(0);
    expect(server.logs.join('\n')).not.toContain('evil.test');
  });
});
