import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { ApiErrorCode } from '../../shared/api/errors';
import { AppError } from './app-error';

/**
 * `handle`, given `req.body` as validated by a shared zod schema (its parsed value). `errorFor` picks the contract
 * error from the first issue's path, so every client error has its exact code and message.
 */
export function withValidBody<S extends z.ZodType>(
  schema: S,
  errorFor: (path: readonly PropertyKey[]) => ApiErrorCode,
  handle: (body: z.infer<S>, req: Request, res: Response) => void | Promise<void>,
): RequestHandler {
  return (req, res, next) => {
    const parsed = schema.safeParse(req.body);
    if (!parsed.success) {
      next(new AppError(errorFor(parsed.error.issues[0]?.path ?? [])));
      return;
    }
    return handle(parsed.data, req, res);
  };
}
