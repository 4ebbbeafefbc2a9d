import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { DUPLICATE_KEY_MESSAGE, type ApiErrorCode } from '../../shared/api/errors';
import { ContractError } from '../contract-error';
import { hasDuplicateKey } from './duplicate-keys';

export const MAX_BODY_BYTES = 10 * 1024;

/**
 * Runs on the raw bytes once they are read, before JSON.parse. `charset` is body-parser's reading of the
 * Content-Type (utf-8 when absent). JSON exchanged between systems is UTF-8 (RFC 8259 §8.1); body-parser would also
 * decode UTF-16 or UTF-7, which no client of this API sends and which only widen what a filter in front of it has to
 * understand.
 */
function checkBody(_req: IncomingMessage, _res: unknown, body: Buffer, charset: string): void {
  if (charset !== 'utf-8' && charset !== 'utf8') throw new ContractError('unsupported_media_type');
  // The scan runs on every body (a few dozen bytes for a check); only a positive answer costs a second parse, which
  // tells a duplicate key from text that is not JSON at all (that is reported as such by the parse that follows).
  if (hasDuplicateKey(body) && isJson(body)) {
    throw new ContractError('invalid_json', { message: DUPLICATE_KEY_MESSAGE });
  }
}

function isJson(body: Buffer): boolean {
  const text = body.toString('utf8');
  try {
    // Without a byte-order mark, as body-parser's decoding leaves the text it parses.
    JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return true;
  } catch {
    return false;
  }
}

const jsonParser = (limit: number) =>
  express.json({
    limit,
    // Accept any JSON value so that `"4000"` or `[…]` gets the precise validation error rather than "not JSON".
    strict: false,
    type: () => true,
    verify: checkBody,
  });
const parse = jsonParser(MAX_BODY_BYTES);

/** body-parser marks each of its failures with a `type`; each maps to one contract error. */
const BODY_PARSER_ERRORS: Record<string, ApiErrorCode> = {
  'entity.too.large': 'payload_too_large',
  'entity.parse.failed': 'invalid_json',
  'charset.unsupported': 'unsupported_media_type',
  // The body ended before its Content-Length, or the client hung up while sending it (nobody reads that answer).
  'request.size.invalid': 'invalid_body',
  'request.aborted': 'invalid_body',
};

/** RFC 9110 §12.5.3: a 415 for a content coding says which ones the server accepts. */
const ACCEPTED_ENCODINGS = { 'Accept-Encoding': 'gzip, deflate, br' };

/**
 * body-parser's error as the contract error it stands for. Its 4xx errors without a `type` come from the
 * decompression stream: a body that is not the gzip, deflate or brotli data its Content-Encoding announces. Its 5xx
 * ones (`stream.encoding.set`, `stream.not.readable`) mean a bug in this server and stay as they are, so the error
 * handler logs them as such and answers 500.
 */
export function bodyParserError(err: unknown): unknown {
  if (err instanceof ContractError) return err; // thrown by checkBody
  const { type, status } = (err ?? {}) as { type?: unknown; status?: unknown };
  if (type === 'encoding.unsupported') {
    return new ContractError('unsupported_encoding', { headers: ACCEPTED_ENCODINGS });
  }
  if (typeof type === 'string' && Object.hasOwn(BODY_PARSER_ERRORS, type)) {
    return new ContractError(BODY_PARSER_ERRORS[type]!);
  }
  if (typeof status === 'number' && status >= 400 && status < 500) return new ContractError('invalid_body');
  return err;
}

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Reads a JSON request body of at most 10 kB. Runs after authentication on purpose: the body of a caller
 * without a valid key is never read.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!req.is(JSON_TYPES)) {
    next(new ContractError('unsupported_media_type'));
    return;
  }
  parse(req, res, (err?: unknown) => (err === undefined ? next() : next(bodyParserError(err))));
};

/** `jsonBody` for the few endpoints whose bodies are larger than a check's (a catchment of 5,000 postcodes). */
export function jsonBodyUpTo(limitBytes: number): RequestHandler {
  const parseUpTo = jsonParser(limitBytes);
  return (req, res, next) => {
    if (!req.is(JSON_TYPES)) {
      next(new ContractError('unsupported_media_type'));
      return;
    }
    parseUpTo(req, res, (err?: unknown) => (err === undefined ? next() : next(bodyParserError(err))));
  };
}
