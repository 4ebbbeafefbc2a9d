import http from 'node:http';
import net from 'node:net';

/** What a raw socket got back: the bytes, and how the connection ended. */
export interface RawExchange {
  received: string;
  /** The socket's error code, if it ended with one (ECONNRESET, ECONNREFUSED…). */
  error: string | undefined;
  /** True when the server closed the connection (rather than the bound running out). */
  closed: boolean;
}

/**
 * Writes `chunks` to a fresh connection to 127.0.0.1:`port` exactly as given (bytes an HTTP client would refuse to
 * send), then collects what comes back until the server closes the connection or `timeoutMs` passes.
 */
export function rawExchange(port: number, chunks: (string | Buffer)[], timeoutMs = 3_000): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let error: string | undefined;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(received).toString('latin1'), error, closed });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

export interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first HTTP response in raw bytes, or undefined when there is none (empty answer, or an incomplete one). */
export function parseResponse(raw: string): ParsedResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(raw);
  if (end < 0 || !status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of raw.slice(0, end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  const body = raw.slice(end + 4);
  if (!Number.isInteger(length) || Buffer.byteLength(body, 'latin1') < length) return undefined;
  return { status: Number(status[1]), headers, body: body.slice(0, length) };
}

/** Sends one request with node:http (which sends headers such as Content-Encoding exactly as given). */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const body = options.body ?? '';
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method ?? 'POST',
        headers: { 'content-length': String(Buffer.byteLength(body)), ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
