import type { RequestHandler } from 'express';
import { requestLineLogger, type Logger } from '../logger';

/**
 * One JSON line per request: method, path (no query string), status, duration and key id. Headers and bodies
 * are never logged, so neither an API key nor a password can reach the log.
 */
export function requestLog(logger: Logger): RequestHandler {
  const lines = requestLineLogger(logger);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Captured now: routers rewrite req.url while they handle the request.
    const path = req.originalUrl.split('?', 1)[0];
    res.on('finish', () => {
      lines.info({
        method: req.method,
        path,
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        key_id: res.locals.keyId ?? null,
      });
    });
    next();
  };
}
