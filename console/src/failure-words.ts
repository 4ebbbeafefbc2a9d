import type { AccountFailure } from '../../ui/api/account-result';
import { failureWords } from '../../ui/api/api-client';

const UNREADABLE = 'The server could not read what this page sent. Reload the page and try again.';
const NOT_OFFERED = 'This server does not offer that. Check that the console’s address is your eligibility server’s.';
const SERVER_FAULT = 'The server could not do this just now. Try again; if it keeps happening, tell whoever runs it.';

/**
 * The console's words for failures whose API message is for integrators ("Invalid request body", "Rate limit
 * exceeded") or that carries an HTTP status: a practice manager or a GP reads these pages, and can act on words only.
 * A form checks its own fields first (the invite form the address), so these are what is left when it still happens.
 */
const PLAIN_WORDS: Readonly<Record<string, string>> = {
  invalid_request: 'The server could not accept what was entered: check each field and try again.',
  invalid_json: UNREADABLE,
  invalid_body: UNREADABLE,
  malformed_request: UNREADABLE,
  unsupported_media_type: UNREADABLE,
  unsupported_encoding: UNREADABLE,
  expectation_failed: UNREADABLE,
  headers_too_large: UNREADABLE,
  payload_too_large: 'That is more than the server accepts at once.',
  invalid_batch: 'The server could not accept the list as this page sent it. Reload the page and try again.',
  request_timeout: 'The connection was too slow to finish. Try again.',
  rate_limited: 'Too many requests from your practice just now. Wait a minute and try again.',
  not_found: NOT_OFFERED,
  method_not_allowed: NOT_OFFERED,
  server_error: SERVER_FAULT,
  internal_error: SERVER_FAULT,
  unexpected_response:
    'The server gave an answer this page does not understand. Reload the page; if it keeps happening, tell whoever runs it.',
  rate_limit_unavailable: 'The server is busy; try again shortly.',
  missing_api_key: 'The API key was not accepted: an owner or admin of your team sees it on the API key page.',
  invalid_api_key: 'The API key was not accepted: an owner or admin of your team sees it on the API key page.',
  invalid_webhook_url:
    'Enter a web address starting with https:// (or http://) that can be reached from the internet, not a local one.',
  data_unavailable:
    'The disaster data has not been loaded yet: the server answers checks once its first refresh is done.',
};

/** A failure in words for the console's pages; `refusedOrigin`: the words for a request from an origin not allowed. */
export function consoleFailureWords(failure: AccountFailure, refusedOrigin: string): string {
  return PLAIN_WORDS[failure.code] ?? failureWords(failure, refusedOrigin);
}
