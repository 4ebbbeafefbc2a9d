import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { errorBody } from '../../shared/api/envelope';
import { ContractError } from '../contract-error';

export const notFound: RequestHandler = (_req, _res, next) => next(new ContractError('not_found'));

/** The one place errors become responses. Nothing the client sees carries a stack trace or an internal message. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    // Body-parser's errors arrive here already as AppErrors (jsonBody maps them); anything else is a bug.
    const known = err instanceof ContractError ? err : undefined;
    if (!known) logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    const error = known ?? new ContractError('internal_error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.status(error.status).json(errorBody(error.code, error.message, error.details));
  };
}
