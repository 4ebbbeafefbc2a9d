import express, { type RequestHandler } from 'express';
import { ContractError } from '../contract-error';
import { bodyParserError } from './json-body';

export const FORM_TYPE = 'application/x-www-form-urlencoded';
const NOT_A_FORM = `Content-Type must be ${FORM_TYPE}`;

/**
 * Reads an HTML form's body (application/x-www-form-urlencoded, UTF-8) of at most `limitBytes` into `req.body`: flat
 * string fields (a repeated field becomes a list, which the endpoint's schema then refuses). For the few endpoints a
 * browser posts a form to from another site (a SAML IdP's HTTP-POST binding); every other body is JSON. Its refusals
 * are the JSON body's: 413 payload_too_large, 415 unsupported_media_type, 400 invalid_body.
 */
export function formBodyUpTo(limitBytes: number): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit: limitBytes, parameterLimit: 20, type: () => true });
  return (req, res, next) => {
    if (!req.is(FORM_TYPE)) {
      next(new ContractError('unsupported_media_type', { message: NOT_A_FORM }));
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err === undefined) return next();
      const refusal = bodyParserError(err);
      // A charset other than UTF-8: the form's own words, not the JSON body's.
      const unsupported = refusal instanceof ContractError && refusal.code === 'unsupported_media_type';
      next(unsupported ? new ContractError('unsupported_media_type', { message: NOT_A_FORM }) : refusal);
    });
  };
}
