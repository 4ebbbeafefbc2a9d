import type http from 'node:http';
import net from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { createHttpServer } from './http/http-server';
import { EXIT_FLUSH_MAX_MS } from './log-destination';

/** How long in-flight requests get to finish after SIGTERM before their connections are cut. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * The longest a stop takes, from the signal to the end of the process, whatever clients, a backend, a child process
 * or stdout do: a supervisor (systemd, a container runtime, a CI runner) that signals the server must see it gone
 * in a bounded time, not find it half-stopped. The drain has DRAIN_TIMEOUT_MS of it, flushing data what is left
 * until the exit, and the exit handler's log flush the last EXIT_FLUSH_MAX_MS.
 */
export const STOP_DEADLINE_MS = 15_000;

/**
 * How long after SIGTERM an idle keep-alive connection stays open, and then how often idle ones are closed. Closing
 * an idle connection races with a request its client may be sending on it at that moment: the request arrives at a
 * closed socket and the client gets a reset for a request it had every reason to think would be read. Kept open, the
 * connection carries that request, which is answered with "Connection: close"; a client that does not send one
 * within this second is most likely not about to.
 */
const IDLE_GRACE_MS = 1_000;

/**
 * Listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests finish, runs `onClose`
 * (flushing data) and exits: with 0 once `onClose` has finished, or with 1 if the stop is still unfinished when its
 * deadline (STOP_DEADLINE_MS) comes.
 *
 * During the drain every response says "Connection: close" — those in flight, and those to requests that arrive on
 * keep-alive connections opened before the signal — so that each client closes its connection after its answer
 * rather than send another request on it. Connections are closed by the server only when idle, after IDLE_GRACE_MS,
 * or all at once after DRAIN_TIMEOUT_MS.
 */
export function listenGracefully(
  app: Express,
  port: number,
  host: string,
  logger: Logger,
  onClose: () => Promise<void>,
): Promise<http.Server> {
  const server = createHttpServer(app, logger);
  let stopping = false;
  // Responses in flight, so that a stop can answer them with "Connection: close": otherwise a keep-alive client
  // holds close() open until keepAliveTimeout, and may even send further requests on the draining server.
  const inFlight = new Set<http.ServerResponse>();
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (stopping) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
  });

  const stop = (signal: string) => {
    // A repeated signal is routine rather than a request to hurry: `npm start` relays to the server the signal its
    // process group was also sent, and a terminal's Ctrl-C reaches npm and the server both. Exiting on it would skip
    // the data flush; the deadline bounds the wait instead.
    if (stopping) return;
    stopping = true;
    let stage = 'draining connections';
    // Not unref'd: should the stop stall on something that holds no handle (a promise nothing will settle), the
    // process still ends here, saying so, rather than quietly with 0 when its event loop runs dry.
    setTimeout(() => {
      logger.error({ signal, stage, deadline_ms: STOP_DEADLINE_MS }, 'stop deadline reached: exiting unfinished');
      process.exit(1);
    }, STOP_DEADLINE_MS - EXIT_FLUSH_MAX_MS);
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
    force.unref();
    // A keep-alive response that was already on its way at the signal leaves its connection idle and open: swept
    // again each grace period rather than once.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_GRACE_MS);
    sweep.unref();
    // net.Server's close, not http.Server's: that one also closes every idle keep-alive connection at once, which is
    // the reset described at IDLE_GRACE_MS. This one only stops accepting connections, and calls back once the last
    // open one has closed.
    net.Server.prototype.close.call(server, () => {
      clearInterval(sweep);
      stage = 'flushing data';
      onClose()
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        })
        .catch((err: unknown) => {
          logger.error({ err }, 'error while flushing data at shutdown');
          process.exit(1);
        });
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
