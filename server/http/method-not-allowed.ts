import type { RequestHandler } from 'express';
import { ContractError } from '../contract-error';

/** 405 in the JSON envelope, with the Allow header a client needs to correct itself. */
export function methodNotAllowed(allow: string): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Allow', allow);
    next(new ContractError('method_not_allowed'));
  };
}
