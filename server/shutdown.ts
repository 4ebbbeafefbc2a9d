import http from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';

/** How long in-flight requests get to finish after SIGTERM before their connections are cut. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests finish, runs `onClose`
 * (flushing data) and exits.
 */
export function listenGracefully(
  app: Express,
  port: number,
  host: string,
  logger: Logger,
  onClose: () => Promise<void>,
): Promise<http.Server> {
  const server = http.createServer(app);
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
    if (stopping) return;
    stopping = true;
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
    force.unref();
    server.close(() => {
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
    // Keep-alive connections with no request in flight would otherwise hold close() open.
    server.closeIdleConnections();
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
