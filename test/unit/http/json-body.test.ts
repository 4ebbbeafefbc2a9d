import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../server/contract-error';
import { bodyParserError } from '../../../server/http/json-body';

/** An error the way body-parser (http-errors) builds it: a status, and for most a `type`. */
const bodyParserFailure = (status: number, type?: string) =>
  Object.assign(new Error('from body-parser'), { status, expose: status < 500, ...(type ? { type } : {}) });

describe('bodyParserError', () => {
  // Every type body-parser 2 and raw-body 3 report, including those no client can provoke through Node's HTTP parser
  // (a body shorter than its Content-Length arrives as request.aborted; the stream errors are bugs of this server).
  it.each([
    ['entity.too.large', 413, 'payload_too_large'],
    ['entity.parse.failed', 400, 'invalid_json'],
    ['encoding.unsupported', 415, 'unsupported_encoding'],
    ['charset.unsupported', 415, 'unsupported_media_type'],
    ['request.size.invalid', 400, 'invalid_body'],
    ['request.aborted', 400, 'invalid_body'],
  ] as const)('%s → %s', (type, status, code) => {
    const mapped = bodyParserError(bodyParserFailure(status, type));
    expect(mapped).toBeInstanceOf(ContractError);
    expect((mapped as ContractError).code).toBe(code);
  });

  it('a decompression error (400, no type) is invalid_body', () => {
    const zlibError = Object.assign(bodyParserFailure(400), { code: 'Z_DATA_ERROR', errno: -3 });
    expect((bodyParserError(zlibError) as ContractError).code).toBe('invalid_body');
  });

  it('keeps the ContractError the verify step threw (entity.verify.failed): its own code and message', () => {
    const thrown = new ContractError('invalid_json', { message: 'Request body is not valid JSON: duplicate key' });
    Object.assign(thrown, { type: 'entity.verify.failed', status: 400 });
    expect(bodyParserError(thrown)).toBe(thrown);
  });

  it.each(['stream.encoding.set', 'stream.not.readable'])(
    '%s (a bug of this server) stays an internal error',
    (type) => {
      const err = bodyParserFailure(500, type);
      expect(bodyParserError(err)).toBe(err);
    },
  );

  it('anything else is passed on untouched', () => {
    const err = new TypeError('boom');
    expect(bodyParserError(err)).toBe(err);
    expect(bodyParserError(undefined)).toBeUndefined();
  });
});
