import express, { type RequestHandler } from 'express';
import { AppError } from './app-error';

export const MAX_BODY_BYTES = 10 * 1024;

const parse = express.json({
  limit: MAX_BODY_BYTES,
  // Accept any JSON value so that `"4000"` or `[…]` gets the precise validation error rather than "not JSON".
  strict: false,
  type: () => true,
});

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Reads a JSON request body of at most 10 kB. Runs after authentication on purpose: the body of a caller
 * without a valid key is never read.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!req.is(JSON_TYPES)) {
    next(new AppError('unsupported_media_type'));
    return;
  }
  parse(req, res, next);
};
