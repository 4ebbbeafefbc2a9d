import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { API_ERRORS } from '../../../shared/api/errors';
import { startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { parseResponse } from './raw-http';

/**
 * The server's timeouts, shortened through the test server's options (production uses the constants of
 * server/http/http-server.ts, checked in test/unit/http/http-server.test.ts), so that each is seen to act in a second
 * or two rather than in its production 10 s, 30 s or 65 s.
 */
const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1_000;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
/** How late after its deadline a connection may be cut: the server checks deadlines every 100 ms here. */
const SLACK_MS = 700;

interface Trickle {
  received: string;
  /** Milliseconds from connecting until the server closed the connection; undefined if it was still open at `boundMs`. */
  closedAfterMs: number | undefined;
  /** How many of the trickled bytes went out before the server closed. */
  sent: number;
}

/**
 * Connects, sends `head` at once, then `drip` one byte every `everyMs` (a slow-loris client, or a slow body), and
 * reports when the server hung up — or gives up after `boundMs`.
 */
function trickle(port: number, head: string, drip: string, everyMs: number, boundMs: number): Promise<Trickle> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (closedAfterMs: number | undefined) => {
      clearInterval(timer);
      clearTimeout(bound);
      socket.destroy();
      resolve({ received, closedAfterMs, sent });
    };
    const bound = setTimeout(() => finish(undefined), boundMs);
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(Date.now() - started));
    socket.on('connect', () => {
      if (head) socket.write(head);
      timer = setInterval(() => {
        if (sent < drip.length && socket.writable) socket.write(drip[sent++]!);
      }, everyMs);
    });
  });
}

function expectTimeoutAnswer(received: string) {
  const res = parseResponse(received);
  expect(res, received).toBeDefined();
  expect(res!.status).toBe(408);
  expect(res!.headers['connection']).toBe('close');
  expect(ErrorEnvelope.parse(JSON.parse(res!.body)).error).toEqual({
    code: 'request_timeout',
    message: API_ERRORS.request_timeout.message,
  });
}

describe('timeouts (shortened for the test)', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer({
      http: {
        headersTimeoutMs: HEADERS_TIMEOUT_MS,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
        timeoutCheckIntervalMs: 100,
      },
    });
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  it('a slow-loris client (headers one byte at a time, never finished) is answered 408 and cut after headersTimeout', async () => {
    const t = await trickle(
      port,
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n',
      'X-Slow: ' + 'a'.repeat(200),
      20,
      3_000,
    );
    expect(t.closedAfterMs, 'the server should have hung up').toBeDefined();
    expect(t.closedAfterMs!).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(t.closedAfterMs!).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    expectTimeoutAnswer(t.received);
  });

  it('a connection that never sends a byte is cut after headersTimeout too', async () => {
    const t = await trickle(port, '', '', 1_000, 3_000);
    expect(t.closedAfterMs, 'the server should have hung up').toBeDefined();
    expect(t.closedAfterMs!).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  it('a body sent one byte at a time is answered 408 and cut after requestTimeout', async () => {
    const body = JSON.stringify({ email: 'slow@example.test', password: 'x'.repeat(100) });
    const head = `POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const t = await trickle(port, head, body, 20, 4_000);
    expect(t.closedAfterMs, 'the server should have hung up').toBeDefined();
    expect(t.sent).toBeLessThan(body.length);
    expect(t.closedAfterMs!).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(t.closedAfterMs!).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    expectTimeoutAnswer(t.received);
  });

  it('logged each cut at info level, with no error line and no stack trace', () => {
    const lines = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.code === 'request_timeout' && l.level === 30).length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
    expect(server.logs.join('\n')).not.toMatch(/stack/i);
  });

  it('an idle keep-alive connection outlives headersTimeout, and is closed quietly after keepAliveTimeout', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
    try {
      const request = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
      await new Promise<void>((resolve) => socket.on('connect', resolve));
      socket.write(request);
      // The answer as soon as it is whole (a fixed wait for it failed whenever the machine was busy).
      await waitFor(() => parseResponse(received), { timeoutMs: 20_000, what: 'the first answer' });
      expect(parseResponse(received)?.status).toBe(200);
      expect(received).toContain(`Keep-Alive: timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);

      // Idle for longer than headersTimeout: that deadline is for a request being received, not for the pause.
      received = '';
      await new Promise((resolve) => setTimeout(resolve, HEADERS_TIMEOUT_MS + 300));
      socket.write(request);
      const secondAt = Date.now();
      await waitFor(() => parseResponse(received), { timeoutMs: 20_000, what: 'the second answer' });
      expect(parseResponse(received)?.status).toBe(200);

      // Then idle until keepAliveTimeout (plus the second Node adds to the advertised value): closed with no answer.
      received = '';
      const closedAt = await Promise.race([
        closed,
        new Promise<number>((resolve) => setTimeout(() => resolve(NaN), 4_000)),
      ]);
      expect(closedAt - secondAt).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS);
      expect(closedAt - secondAt).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 1_000 + SLACK_MS);
      expect(received).toBe('');
    } finally {
      socket.destroy();
    }
  });
});
