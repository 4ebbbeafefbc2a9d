import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  answerClientError,
  CLIENT_ERROR_LINGER_MS,
  createHttpServer,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_HEADER_BYTES,
  REQUEST_TIMEOUT_MS,
  SOCKET_IDLE_TIMEOUT_MS,
} from '../../../server/http/http-server';
import { createLogger } from '../../../server/logger';

const silent = createLogger('silent');

describe('createHttpServer', () => {
  it('sets the production timeouts unless told otherwise', () => {
    const server = createHttpServer(() => undefined, silent);
    expect(server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
    expect(server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(server.timeout).toBe(SOCKET_IDLE_TIMEOUT_MS);
    expect((server as unknown as { maxHeaderSize: number }).maxHeaderSize).toBe(MAX_HEADER_BYTES);
    expect(server.listenerCount('clientError')).toBe(1);
  });

  it('keeps the timeouts in the order their comments promise', () => {
    // Node refuses a headers deadline longer than the whole request's.
    expect(HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS);
    // Longer than the 60 s idle timeout of nginx's upstream keep-alive and of AWS ALB, so the proxy closes first.
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    // Slow loris: cut well before Node's own 60 s.
    expect(HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(10_000);
    expect(MAX_HEADER_BYTES).toBe(16 * 1024);
  });
});

/** The parts of a net.Socket the handler touches. */
class FakeSocket extends EventEmitter {
  writable = true;
  written: Buffer[] = [];
  destroyed = false;
  _httpMessage: { headersSent: boolean } | null = null;
  end(chunk?: Buffer) {
    if (chunk) this.written.push(chunk);
    this.writable = false;
    return this;
  }
  write(chunk: Buffer) {
    this.written.push(chunk);
    return true;
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
    return this;
  }
}

const parseError = (code: string) => Object.assign(new Error('Parse Error'), { code });

describe('answerClientError', () => {
  afterEach(() => vi.useRealTimers());
  const handle = answerClientError(silent);
  const asDuplex = (s: FakeSocket) => s as unknown as Duplex;

  it('answers with the envelope, half-closes, and destroys the socket after the linger time', () => {
    vi.useFakeTimers();
    const socket = new FakeSocket();
    handle(parseError('HPE_INVALID_CHUNK_SIZE'), asDuplex(socket));
    const text = Buffer.concat(socket.written).toString('latin1');
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(text).toContain('\r\nConnection: close\r\n');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      success: false,
      error: { code: 'malformed_request', message: 'Malformed HTTP request' },
    });
    expect(socket.writable).toBe(false);
    expect(socket.destroyed).toBe(false);
    vi.advanceTimersByTime(CLIENT_ERROR_LINGER_MS);
    expect(socket.destroyed).toBe(true);
  });

  it.each([
    ['HPE_HEADER_OVERFLOW', 431],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400],
  ])('%s → %i', (code, status) => {
    const socket = new FakeSocket();
    handle(parseError(code), asDuplex(socket));
    expect(Buffer.concat(socket.written).toString('latin1')).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    socket.destroy();
  });

  it('answers once: further parser errors for the same socket (more bytes from the client) are dropped', () => {
    const socket = new FakeSocket();
    handle(parseError('HPE_INVALID_METHOD'), asDuplex(socket));
    handle(parseError('HPE_INVALID_METHOD'), asDuplex(socket));
    expect(socket.written).toHaveLength(1);
    expect(socket.destroyed).toBe(false);
    socket.destroy();
  });

  it('destroys without writing when the socket is not writable', () => {
    const socket = new FakeSocket();
    socket.writable = false;
    handle(parseError('HPE_INVALID_METHOD'), asDuplex(socket));
    expect(socket.written).toEqual([]);
    expect(socket.destroyed).toBe(true);
  });

  it('destroys without writing when the client reset the connection', () => {
    const socket = new FakeSocket();
    handle(parseError('ECONNRESET'), asDuplex(socket));
    expect(socket.written).toEqual([]);
    expect(socket.destroyed).toBe(true);
  });

  it('destroys without writing when part of another response is already on the wire', () => {
    const socket = new FakeSocket();
    socket._httpMessage = { headersSent: true };
    handle(parseError('ERR_HTTP_REQUEST_TIMEOUT'), asDuplex(socket));
    expect(socket.written).toEqual([]);
    expect(socket.destroyed).toBe(true);
  });
});
