import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { API_ERRORS, type ApiErrorCode } from '../../../shared/api/errors';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { parseResponse, rawExchange } from './raw-http';

/**
 * Requests Node's HTTP parser refuses before the app sees them. Node's own answer is a bare status line with no
 * body; a client of this API must get the JSON envelope like every other error, and the connection closed (after an
 * unparseable request nothing that follows on the connection can be trusted).
 */
interface Case {
  name: string;
  chunks: (string | Buffer)[];
  code: ApiErrorCode;
}

const HEAD = 'POST /api/v1/check-postcode HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';
const BODY = '{"postcode":"4000"}';

const CASES: Case[] = [
  {
    name: 'chunk size that is not hex',
    chunks: [`${HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n${BODY}\r\n0\r\n\r\n`],
    code: 'malformed_request',
  },
  {
    name: 'chunk size that overflows',
    chunks: [`${HEAD}Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n${BODY}\r\n0\r\n\r\n`],
    code: 'malformed_request',
  },
  { name: 'Content-Length: -1', chunks: [`${HEAD}Content-Length: -1\r\n\r\n${BODY}`], code: 'malformed_request' },
  {
    name: 'two different Content-Lengths',
    chunks: [`${HEAD}Content-Length: 19\r\nContent-Length: 20\r\n\r\n${BODY}`],
    code: 'malformed_request',
  },
  {
    name: 'Content-Length together with Transfer-Encoding',
    chunks: [`${HEAD}Content-Length: 19\r\nTransfer-Encoding: chunked\r\n\r\n13\r\n${BODY}\r\n0\r\n\r\n`],
    code: 'malformed_request',
  },
  {
    name: 'NUL in a header value',
    chunks: [`${HEAD}X-Api-Key: sk_live_\0abc\r\nContent-Length: 19\r\n\r\n${BODY}`],
    code: 'malformed_request',
  },
  {
    name: 'space before the colon of a header',
    chunks: [`${HEAD}X-Api-Key : abc\r\nContent-Length: 19\r\n\r\n${BODY}`],
    code: 'malformed_request',
  },
  {
    name: 'not HTTP at all',
    chunks: ['\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 a TLS hello\r\n\r\n'],
    code: 'malformed_request',
  },
  // Issue #22 (7): refused by Node's HTTP layer after parsing, by a bare status line and no body.
  { name: 'HTTP/1.1 GET without Host', chunks: ['GET /healthz HTTP/1.1\r\n\r\n'], code: 'malformed_request' },
  {
    name: 'HTTP/1.1 POST without Host',
    chunks: [
      `POST /api/v1/check-postcode HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 19\r\n\r\n${BODY}`,
    ],
    code: 'malformed_request',
  },
  {
    name: 'Expect: foo',
    chunks: [`${HEAD}Expect: foo\r\nContent-Length: 19\r\n\r\n${BODY}`],
    code: 'expectation_failed',
  },
  {
    name: 'Expect: foo without Host (Host is checked first)',
    chunks: [`POST /api/v1/check-postcode HTTP/1.1\r\nExpect: foo\r\nContent-Length: 19\r\n\r\n${BODY}`],
    code: 'malformed_request',
  },
  {
    name: 'headers over 16 kB',
    chunks: [`${HEAD}X-Pad: ${'a'.repeat(17 * 1024)}\r\nContent-Length: 19\r\n\r\n${BODY}`],
    code: 'headers_too_large',
  },
  {
    name: 'headers over 16 kB, many small ones, sent in pieces',
    chunks: [
      HEAD,
      ...Array.from({ length: 400 }, (_, i) => `X-Pad-${i}: ${'b'.repeat(40)}\r\n`),
      `Content-Length: 19\r\n\r\n${BODY}`,
    ],
    code: 'headers_too_large',
  },
];

describe('requests the HTTP parser refuses', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer();
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  it.each(CASES)('$name → $code envelope, Connection: close, closed', async (c) => {
    const before = server.logs.length;
    const exchange = await rawExchange(port, c.chunks);
    const res = parseResponse(exchange.received);
    expect(res, `received: ${JSON.stringify(exchange.received)}`).toBeDefined();
    expect(res!.status).toBe(API_ERRORS[c.code].status);
    expect(res!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res!.headers['connection']).toBe('close');
    expect(ErrorEnvelope.parse(JSON.parse(res!.body)).error).toEqual({
      code: c.code,
      message: API_ERRORS[c.code].message,
    });
    // Nothing after the one answer, and the server hung up by itself.
    expect(exchange.received.indexOf('HTTP/1.1', 1)).toBe(-1);
    expect(exchange.closed).toBe(true);

    // One info line says what was refused, without a stack trace.
    await waitFor(() => server.logs.length > before, { what: 'a log line' });
    const lines = server.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ level: 30, status: res!.status })]);
    expect(server.logs.slice(before).join('\n')).not.toMatch(/stack/i);
  });

  it('still answers a well-formed request afterwards', async () => {
    const exchange = await rawExchange(port, ['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n']);
    expect(parseResponse(exchange.received)?.status).toBe(200);
  });

  it('serves HTTP/1.0 without Host, and Expect: 100-continue, as before', async () => {
    const old = await rawExchange(port, ['GET /healthz HTTP/1.0\r\n\r\n']);
    expect(parseResponse(old.received)?.status).toBe(200);
    const exchange = await rawExchange(port, [
      `${HEAD}X-Api-Key: sk_live_nope\r\nExpect: 100-continue\r\nContent-Length: 19\r\nConnection: close\r\n\r\n`,
      BODY,
    ]);
    expect(exchange.received).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /);
  });
});
