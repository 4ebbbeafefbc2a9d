import http from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '../../shared/api/envelope';
import { API_ERRORS, type ApiErrorCode } from '../../shared/api/errors';
import type { Logger } from '../logger';
import { hasUndecodablePath, originForm } from './request-target';

/**
 * How long a client may take to send a request's headers, counted from its first byte (or from connecting). A real
 * client sends them in one packet; 10 s allows a congested mobile link many times over, and cuts a slow-loris
 * client (headers a byte at a time) six times sooner than Node's default of 60 s.
 */
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * How long a client may take to send a whole request, headers and body. Bodies are at most 10 kB (json-body.ts),
 * so 30 s is generous; Node's default of 5 minutes would let a slow body hold a connection twelve times longer.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * How long an idle keep-alive connection is kept open after a response. Above the 60 s idle timeout of the usual
 * reverse proxies and load balancers (nginx's upstream keepalive_timeout, AWS ALB, Azure): the proxy must be the one
 * to close an idle connection, never the server, or the proxy may send a request onto a connection the server is
 * closing at that moment and get a reset (a 502 for a POST, which the proxy will not retry). A client talking to the
 * server directly is told the value in the Keep-Alive header and closes first.
 *
 * This is deliberately longer than HEADERS_TIMEOUT_MS: since Node 18 the headers deadline starts with a request's
 * first byte, not with the idle time before it, so an idle keep-alive connection is governed by this value alone
 * (the old advice "headersTimeout > keepAliveTimeout" worked around earlier versions).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * A connection on which nothing moves for this long while a request is handled or its response written is cut: a
 * client that stops reading a response (a slow-read attack on the documentation page's assets) would otherwise hold
 * it forever, as no other timeout covers the response. Every handler answers in well under a second.
 */
export const SOCKET_IDLE_TIMEOUT_MS = 60_000;

/** How often Node checks the headers and request deadlines; its default of 30 s would let them overrun by up to 30 s. */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * The largest request head (request line and headers) accepted; larger ones get 431. Node's default, set here so that
 * a --max-http-header-size flag cannot change it unnoticed. The largest legitimate head (an API key, a session
 * cookie, a browser's usual headers) is well under 4 kB.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * After answering a request the parser refused, how long the connection stays open for reading (and discarding)
 * whatever the client is still sending. Closing a socket with unread data sends a reset, which can make the client
 * drop the answer it was sent; a client that keeps sending past this is cut.
 */
export const CLIENT_ERROR_LINGER_MS = 2_000;

export interface HttpServerOptions {
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  socketIdleTimeoutMs?: number;
  timeoutCheckIntervalMs?: number;
}

/**
 * The HTTP server the app runs on, in production (listenGracefully) and in the tests (startTestServer): the timeouts
 * above, the JSON envelope for requests Node's parser refuses before the app sees them, and request targets the app
 * can route (request-target.ts): an undecodable path refused, an absolute-form target reduced to its path and query.
 */
export function createHttpServer(
  app: http.RequestListener,
  logger: Logger,
  options: HttpServerOptions = {},
): http.Server {
  const refuse = refuseRequest(logger);
  const server = http.createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? TIMEOUT_CHECK_INTERVAL_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
      // Node's own refusal of an HTTP/1.1 request without Host is a bare 400 with no body, written before any
      // listener runs: the check is made here instead, with the envelope.
      requireHostHeader: false,
    },
    (req, res) => {
      const target = req.url ?? '/';
      if (lacksHost(req)) refuse(res, 'malformed_request', 'no Host header');
      else if (hasUndecodablePath(target)) refuse(res, 'malformed_request', 'undecodable percent-escape in the path');
      else {
        req.url = originForm(target);
        app(req, res);
      }
    },
  );
  server.timeout = options.socketIdleTimeoutMs ?? SOCKET_IDLE_TIMEOUT_MS;
  server.on('clientError', answerClientError(logger));
  // An Expect other than 100-continue: without a listener Node answers a bare 417 with no body. Closed afterwards: a
  // client that expects something may still be holding back its body. Host first, in the order Node checks them.
  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (lacksHost(req)) refuse(res, 'malformed_request', 'no Host header');
    else refuse(res, 'expectation_failed', 'unsupported Expect');
  });
  return server;
}

/** RFC 9112 3.2: an HTTP/1.1 request must carry Host (an empty one is allowed); 1.0 need not. */
function lacksHost(req: http.IncomingMessage): boolean {
  return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined;
}

/** The envelope's headers, the same whether written by a ServerResponse or raw on a socket the parser gave up on. */
function envelopeHeaders(body: string): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    Connection: 'close',
  };
}

/**
 * Answers a request that parsed but is refused before the app sees it, with the envelope and `Connection: close`:
 * Node reads and drops the rest of its body, then closes the connection (what follows on it cannot be trusted).
 */
function refuseRequest(logger: Logger) {
  return (res: http.ServerResponse, code: ApiErrorCode, reason: string): void => {
    const { status } = API_ERRORS[code];
    const body = JSON.stringify(errorBody(code));
    logger.info({ status, code, reason }, 'refused a request the HTTP layer could not accept');
    res.writeHead(status, envelopeHeaders(body));
    res.end(body);
  };
}

/** What Node reports through 'clientError': a parser error (HPE_*), a timeout, or a socket error. */
type ClientError = Error & { code?: string };

function codeFor(err: ClientError): ApiErrorCode {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headers_too_large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request_timeout';
    default:
      return 'malformed_request';
  }
}

/** The whole answer, bytes included, built once per code: a flood of bad requests costs no serialisation. */
function rawAnswer(code: ApiErrorCode): Buffer {
  const { status } = API_ERRORS[code];
  const body = JSON.stringify(errorBody(code));
  const headers = Object.entries(envelopeHeaders(body)).map(([name, value]) => `${name}: ${value}\r\n`);
  return Buffer.from(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${headers.join('')}\r\n${body}`, 'latin1');
}

const ANSWERS = new Map<ApiErrorCode, Buffer>(
  (['malformed_request', 'headers_too_large', 'request_timeout'] as const).map((code) => [code, rawAnswer(code)]),
);

/** Sockets already answered: the parser reports an error again for every further chunk the client sends. */
const answered = new WeakSet<Duplex>();

/**
 * The server's 'clientError' listener. Node's own answer is a bare status line; this one is the JSON envelope with
 * Connection: close, written only when nothing of another response has gone out on the socket (it would corrupt it).
 * The socket is then half-closed, what the client still sends is read and dropped, and it is destroyed once the
 * client hangs up or after CLIENT_ERROR_LINGER_MS.
 */
export function answerClientError(logger: Logger): (err: ClientError, socket: Duplex) => void {
  return (err, socket) => {
    if (answered.has(socket)) return;
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      // The client is gone, or a response is already partly on the wire: nothing can be said on this connection.
      socket.destroy();
      return;
    }
    answered.add(socket);
    const code = codeFor(err);
    logger.info(
      { status: API_ERRORS[code].status, code, reason: err.code ?? null },
      'refused a request the HTTP parser could not accept',
    );
    socket.end(ANSWERS.get(code));
    const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  };
}
