import { describe, expect, it } from 'vitest';
import { API_ERRORS } from '../../../shared/api/errors';
import { consoleFailureWords } from '../../../console/src/failure-words';

const ORIGIN_WORDS = 'words for an origin not allowed';

/** What the console's pages must not say: an HTTP status, the API's rate-limit and refusal jargon, raw API words. */
const JARGON = /\b[45]\d\d\b|rate[ -]limit|\brefused\b|request body|HTTP \d|header|x-api-key|Content-Type/i;

describe('consoleFailureWords', () => {
  it('says every API error, and the client’s own failures, without a status code or the API’s jargon', () => {
    const failures = [
      ...Object.entries(API_ERRORS).map(([code, { status, message }]) => ({ code, message, status })),
      // The shared client's failures of its own (ui/api/account-api.ts), which carry the status in their message.
      { code: 'server_error', message: 'The server answered HTTP 500.', status: 500 },
      { code: 'unexpected_response', message: 'The server gave an unexpected answer (HTTP 200).', status: 200 },
      { code: 'not_found', message: 'This server has no account endpoints (HTTP 404). Check the Server URL.' },
    ];
    const said = failures
      .map((f) => [f.code, consoleFailureWords({ ok: false, ...f }, ORIGIN_WORDS)] as const)
      .filter(([, words]) => JARGON.test(words));
    expect(said).toEqual([]);
  });

  it('keeps the page’s own words for a refused origin and the shared words for a session that ended', () => {
    expect(consoleFailureWords({ ok: false, code: 'forbidden_origin', message: 'x' }, ORIGIN_WORDS)).toBe(ORIGIN_WORDS);
    expect(consoleFailureWords({ ok: false, code: 'unauthenticated', message: 'x' }, ORIGIN_WORDS)).toBe(
      'Your session has ended. Sign in again.',
    );
  });

  it('passes on the API’s words where they are already plain', () => {
    const { message } = API_ERRORS.account_exists;
    expect(consoleFailureWords({ ok: false, code: 'account_exists', message }, ORIGIN_WORDS)).toBe(message);
  });
});
