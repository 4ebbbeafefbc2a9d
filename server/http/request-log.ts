import type { RequestHandler } from 'express';
import { requestLineLogger, type Logger } from '../logger';

/**
 * One JSON line per request: method, path (no query string), status, duration and key id. Headers and bodies
 * are never logged, so neither an API key nor a password can reach the log.
 */
export function requestLog(logger: Logger): RequestHandler {
  const lines = requestLineLogger(logger);
  return (req, res, next) => {
    const started = performance.now();
    // Captured now: routers rewrite req.url while they handle the request.
    const url = req.originalUrl;
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    res.once('finish', () => {
      lines.info({
        method: req.method,
        path,
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        key_id: res.locals.keyId ?? null,
      });
    });
    next();
  };
}
