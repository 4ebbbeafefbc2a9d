import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { API_ERRORS, type ApiErrorCode } from '../../../shared/api/errors';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { send } from './raw-http';

/**
 * Every way body-parser can refuse a body that a client can provoke, on both endpoints that read a JSON body: the
 * check (behind a valid key) and sign-in (before any authentication). Each is a client error in the envelope and one
 * info-level request line in the log: never a 500, an "unhandled error" line or a stack trace.
 */
interface Case {
  name: string;
  headers?: Record<string, string>;
  body: string | Buffer;
  code: ApiErrorCode;
}

const JSON_BODY = '{"postcode":"4000","email":"a@example.test","password":"x"}';
/** 1 MB of spaces gzips to about 1 kB: under the 10 kB limit on the wire, far over it once inflated. */
const GZIP_BOMB = zlib.gzipSync(Buffer.alloc(1_000_000, ' '));

const CASES: Case[] = [
  {
    name: 'gzip header, body not gzip',
    headers: { 'content-encoding': 'gzip' },
    body: JSON_BODY,
    code: 'invalid_body',
  },
  {
    name: 'deflate header, body not deflate',
    headers: { 'content-encoding': 'deflate' },
    body: JSON_BODY,
    code: 'invalid_body',
  },
  {
    name: 'br header, body not brotli',
    headers: { 'content-encoding': 'br' },
    body: Buffer.from('\xff\xff\xff\xff not brotli', 'latin1'),
    code: 'invalid_body',
  },
  {
    name: 'gzip cut short',
    headers: { 'content-encoding': 'gzip' },
    body: zlib.gzipSync(JSON_BODY).subarray(0, 15),
    code: 'invalid_body',
  },
  { name: 'gzip bomb', headers: { 'content-encoding': 'gzip' }, body: GZIP_BOMB, code: 'payload_too_large' },
  {
    name: 'unknown content encoding',
    headers: { 'content-encoding': 'compress' },
    body: JSON_BODY,
    code: 'unsupported_encoding',
  },
  {
    name: 'charset that does not exist',
    headers: { 'content-type': 'application/json; charset=utf-9' },
    body: JSON_BODY,
    code: 'unsupported_media_type',
  },
  { name: 'not JSON', body: '{"postcode":', code: 'invalid_json' },
  {
    name: 'over 10 kB',
    body: JSON.stringify({ postcode: '4000', pad: 'x'.repeat(11_000) }),
    code: 'payload_too_large',
  },
];

describe('body-parser failures become client errors', () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await startTestServer();
    apiKey = (await seedAccount(server.runtime, { rateLimit: 10_000 })).apiKey!;
  });
  afterAll(() => server.close());

  const ENDPOINTS = [
    { endpoint: 'check', path: '/api/v1/check-postcode', key: true },
    { endpoint: 'login', path: '/api/v1/auth/login', key: false },
  ];
  const table = ENDPOINTS.flatMap((e) => CASES.map((c) => ({ ...e, ...c })));

  it.each(table)('$endpoint: $name → $code, one info line, no stack', async (c) => {
    const before = server.logs.length;
    const res = await send(server.url + c.path, {
      headers: { 'content-type': 'application/json', ...(c.key ? { 'x-api-key': apiKey } : {}), ...c.headers },
      body: c.body,
    });
    expect(res.status).toBe(API_ERRORS[c.code].status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(ErrorEnvelope.parse(JSON.parse(res.body)).error).toEqual({
      code: c.code,
      message: API_ERRORS[c.code].message,
    });
    if (c.code === 'unsupported_encoding') expect(res.headers['accept-encoding']).toBe('gzip, deflate, br');

    await waitFor(() => server.logs.length > before, { what: 'the request log line' });
    const lines = server.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, path: c.path, status: res.status });
    expect(server.logs.slice(before).join('\n')).not.toMatch(/stack|unhandled/i);
  });

  it('a gzip body that is valid is read (the encodings refused above are decoded, not ignored)', async () => {
    const res = await send(server.url + '/api/v1/check-postcode', {
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-api-key': apiKey },
      body: zlib.gzipSync(JSON.stringify({ postcode: '4000' })),
    });
    expect(res.status).toBe(200);
  });

  it('a client that hangs up mid-body (request.aborted) costs no error line and no stack', async () => {
    const before = server.logs.length;
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.on('connect', resolve));
    socket.write(
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    );
    // Give the server time to start reading the body, then hang up.
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    // The server is still healthy, and wrote nothing alarming about the aborted request.
    expect((await send(server.url + '/healthz', { method: 'GET' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const logged = server.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.filter((l) => (l.level as number) >= 40)).toEqual([]);
    expect(server.logs.slice(before).join('\n')).not.toMatch(/stack|unhandled/i);
  });
});
