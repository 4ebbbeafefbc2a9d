import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { ApiErrorCode } from '../../shared/api/errors';
import { ContractError } from '../contract-error';

/**
 * The contract error for input the schema refused, from the first issue's path, so every client error has its exact
 * code and message. Given the raw input too, for an endpoint whose refusal lists the offending values (an ContractError
 * with `details`) rather than naming one field.
 */
export type ErrorFor = (path: readonly PropertyKey[], input: unknown) => ApiErrorCode | ContractError;

/** `next` is for a handler that hands on rather than answering (a PUT answered by the GET's handler after it). */
type Handle<S extends z.ZodType> = (
  value: z.infer<S>,
  req: Request,
  res: Response,
  next: NextFunction,
) => void | Promise<void>;

/** `input` as `schema` parses it, or the contract error `errorFor` gives for its first issue. */
export function parseOrRefuse<S extends z.ZodType>(
  schema: S,
  input: unknown,
  errorFor: ErrorFor,
): { ok: true; value: z.infer<S> } | { ok: false; refusal: ContractError } {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const refusal = errorFor(parsed.error.issues[0]?.path ?? [], input);
  return { ok: false, refusal: refusal instanceof ContractError ? refusal : new ContractError(refusal) };
}

/** `handle`, given what `read` takes from the request as validated by a shared zod schema (its parsed value). */
function withValid<S extends z.ZodType>(
  read: (req: Request) => unknown,
  schema: S,
  errorFor: ErrorFor,
  handle: Handle<S>,
): RequestHandler {
  return (req, res, next) => {
    const parsed = parseOrRefuse(schema, read(req), errorFor);
    if (!parsed.ok) return next(parsed.refusal);
    return handle(parsed.value, req, res, next);
  };
}

/** `handle`, given `req.body` as validated by a shared zod schema (its parsed value). */
export function withValidBody<S extends z.ZodType>(schema: S, errorFor: ErrorFor, handle: Handle<S>): RequestHandler {
  return withValid((req) => req.body, schema, errorFor, handle);
}

/** `handle`, given `req.query` as validated by a shared zod schema (its parsed value). */
export function withValidQuery<S extends z.ZodType>(schema: S, errorFor: ErrorFor, handle: Handle<S>): RequestHandler {
  return withValid((req) => req.query, schema, errorFor, handle);
}
