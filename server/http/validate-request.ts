import type { RequestHandler } from 'express';
import type { z } from 'zod';
import type { ApiErrorCode } from '../../shared/api/errors';
import { AppError } from './app-error';

/**
 * Validates `req.body` with a shared zod schema and replaces it with the parsed value. `errorFor` picks the
 * contract error from the first issue's path, so every client error has its exact code and message.
 */
export function validateBody<S extends z.ZodType>(
  schema: S,
  errorFor: (path: readonly PropertyKey[]) => ApiErrorCode,
): RequestHandler {
  return (req, res, next) => {
    const parsed = schema.safeParse(req.body);
    if (!parsed.success) {
      next(new AppError(errorFor(parsed.error.issues[0]?.path ?? [])));
      return;
    }
    res.locals.body = parsed.data;
    next();
  };
}
