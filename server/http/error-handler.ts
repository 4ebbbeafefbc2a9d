import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { errorBody } from '../../shared/api/envelope';
import type { ApiErrorCode } from '../../shared/api/errors';
import { AppError } from './app-error';

/** body-parser reports its failures with a `type`; each maps to one contract error. */
const BODY_PARSER_ERRORS: Record<string, ApiErrorCode> = {
  'entity.too.large': 'payload_too_large',
  'entity.parse.failed': 'invalid_json',
  'encoding.unsupported': 'unsupported_media_type',
  'charset.unsupported': 'unsupported_media_type',
  'request.size.invalid': 'invalid_json',
  'request.aborted': 'invalid_json',
  'stream.encoding.set': 'internal_error',
};

export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && type in BODY_PARSER_ERRORS) {
    const code = BODY_PARSER_ERRORS[type]!;
    return code === 'internal_error' ? undefined : new AppError(code);
  }
  return undefined;
}

export const notFound: RequestHandler = (_req, _res, next) => next(new AppError('not_found'));

/** The one place errors become responses. Nothing the client sees carries a stack trace or an internal message. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = toAppError(err);
    if (!known) logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    const error = known ?? new AppError('internal_error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.status(error.status).json(errorBody(error.code, error.message));
  };
}
