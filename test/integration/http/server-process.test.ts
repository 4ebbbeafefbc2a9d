import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERRORS } from '../../../shared/api/errors';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../../server/http/http-server';
import { startServerProcess, type ServerProcess } from '../../helpers/spawn-server';
import { tempDir } from '../../helpers/temp-dir';
import { parseResponse, rawExchange } from './raw-http';

/** Nothing here may reach the internet: the start-up refresh of the empty data directory goes to a closed local port. */
const OFFLINE = { DISASTERASSIST_BASE_URL: 'http://127.0.0.1:9', DRFA_CSV_URL: 'http://127.0.0.1:9/drfa.csv' };
const REQUEST = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

type Outcome =
  | { kind: 'answered'; close: boolean }
  /** The connection attempt itself was refused: the request was never sent. Clean. */
  | { kind: 'refused' }
  /** The request went out on a connection that was open, and the connection ended without a full answer. */
  | { kind: 'lost'; detail: string };

/**
 * One keep-alive client on a raw socket, so that what happened to each request is known exactly: whether its bytes
 * were written to an open connection, and whether a full response came back.
 */
class KeepAliveClient {
  private socket: net.Socket | undefined;
  private received = '';
  private ended = false;
  private waiting: ((why: string) => void) | undefined;
  readonly outcomes: Outcome[] = [];

  constructor(private readonly port: number) {}

  private connect(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = net.connect(this.port, '127.0.0.1');
      this.received = '';
      this.ended = false;
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        this.received += chunk;
        this.waiting?.('data');
      });
      const end = (why: string) => {
        this.ended = true;
        this.waiting?.(why);
      };
      socket.on('end', () => end('end'));
      socket.on('close', () => end('close'));
      socket.once('connect', () => {
        this.socket = socket;
        resolve(true);
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        if (this.socket !== socket) resolve(false);
        end(err.code ?? err.message);
      });
    });
  }

  /** Sends one request, reusing the connection while it is open (a closed one is replaced by a new one). */
  async request(): Promise<Outcome> {
    if (!this.socket || this.ended) {
      this.socket?.destroy();
      this.socket = undefined;
      if (!(await this.connect())) return this.record({ kind: 'refused' });
    }
    this.received = '';
    const socket = this.socket!;
    socket.write(REQUEST);
    const outcome = await new Promise<Outcome>((resolve) => {
      const check = (why: string) => {
        const res = parseResponse(this.received);
        if (res) {
          resolve({ kind: 'answered', close: res.headers['connection'] === 'close' });
        } else if (this.ended) {
          resolve({ kind: 'lost', detail: `${why} after ${JSON.stringify(this.received)}` });
        }
      };
      this.waiting = check;
      check('');
    });
    this.waiting = undefined;
    if (outcome.kind === 'answered' && outcome.close) this.ended = true;
    return this.record(outcome);
  }

  close() {
    this.socket?.destroy();
  }

  private record(outcome: Outcome): Outcome {
    this.outcomes.push(outcome);
    return outcome;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The real entry point (server/index.ts → listenGracefully): the same HTTP server setup the in-process tests use. */
describe('the HTTP server of the real process', () => {
  let server: ServerProcess | undefined;
  let port: number;
  const clients: KeepAliveClient[] = [];
  beforeAll(async () => {
    const started = await startServerProcess({ ...OFFLINE, DATA_DIR: await tempDir('dte-drain-') });
    server = started.server;
    port = Number(new URL(started.url).port);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.kill();
  });

  it('answers a request the parser refuses with the JSON envelope, and advertises the production keep-alive timeout', async () => {
    const bad = parseResponse(
      (await rawExchange(port, [`${REQUEST.slice(0, -2)}Content-Length: -1\r\n\r\n`])).received,
    );
    expect(bad?.status).toBe(400);
    expect(JSON.parse(bad!.body)).toEqual({
      success: false,
      error: { code: 'malformed_request', message: API_ERRORS.malformed_request.message },
    });
    const good = parseResponse(
      (await rawExchange(port, [`${REQUEST.slice(0, -2)}Connection: close\r\n\r\n`])).received,
    );
    expect(good?.status).toBe(200);
    const ok = parseResponse((await rawExchange(port, [REQUEST], 300)).received);
    expect(ok?.headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
  });

  it('SIGTERM: every request written to an open connection gets a full answer; then connections are refused', async () => {
    const current = server!;
    // Busy clients send requests back to back; late clients send one more request a little after SIGTERM on the
    // connection they opened before it; idle clients never send again.
    const busy = Array.from({ length: 8 }, () => new KeepAliveClient(port));
    const late = Array.from({ length: 3 }, () => new KeepAliveClient(port));
    const idle = Array.from({ length: 2 }, () => new KeepAliveClient(port));
    clients.push(...busy, ...late, ...idle);
    for (const c of clients) expect(await c.request()).toEqual({ kind: 'answered', close: false });

    let sigtermAt = 0;
    const loops = busy.map(async (c, i) => {
      // Staggered so that requests are in every state when the signal lands: unread, being parsed, answered.
      await sleep(i % 4);
      for (;;) {
        const outcome = await c.request();
        if (outcome.kind !== 'answered' || (sigtermAt && Date.now() - sigtermAt > 2_000)) return;
      }
    });
    await sleep(150);
    sigtermAt = Date.now();
    current.child.kill('SIGTERM');
    await sleep(300);
    await Promise.all(late.map((c) => c.request()));
    await Promise.all(loops);

    const exit = await Promise.race([current.exited, sleep(4_000).then(() => null)]);
    expect(exit, 'the server should exit promptly once its clients are served').toEqual({ code: 0, signal: null });

    const outcomes = clients.flatMap((c) => c.outcomes);
    expect(outcomes.filter((o) => o.kind === 'lost')).toEqual([]);
    // Requests made after SIGTERM on connections opened before it were answered, telling the client to close...
    for (const c of late) expect(c.outcomes.at(-1)).toEqual({ kind: 'answered', close: true });
    // ...and a client that then tries a new connection is refused before it sends anything.
    for (const c of busy) expect(c.outcomes.at(-1)).toEqual({ kind: 'refused' });
    expect(outcomes.filter((o) => o.kind === 'answered').length).toBeGreaterThan(clients.length);
    expect(current.stderr()).toBe('');
  });
});
