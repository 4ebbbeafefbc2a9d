import type { ClientCheckData, ClientMetadata } from './check-answer';

/**
 * Why a check produced no answer, in the terms the badge speaks. Every failure of the background's request ends as
 * one of these, so the page never sees a silent failure.
 */
export type Problem =
  /** No server URL saved in the options. */
  | 'not_configured'
  /** No API key saved in the options (or the server said the header was missing). */
  | 'no_key'
  /** The user has not granted the extension access to the configured server's origin. */
  | 'no_permission'
  | 'invalid_key'
  | 'subscription_inactive'
  | 'rate_limited'
  | 'unreachable'
  /** The server's address answered with a redirect, which is never followed with the key (the IT provider fixes it). */
  | 'redirected'
  | 'data_unavailable'
  | 'postcode_not_found'
  | 'invalid_postcode'
  | 'server_error'
  /**
   * Not asked (yet): the page holds more postcodes than one page may have checked in a minute, so that one page never
   * spends the clinic's checks. Checked when it comes into view or when the badge is pressed.
   */
  | 'not_checked_yet';

export interface CheckSuccess {
  ok: true;
  postcode: string;
  data: ClientCheckData;
  metadata: ClientMetadata;
}

export interface CheckFailure {
  ok: false;
  postcode: string;
  problem: Problem;
  /** Epoch milliseconds after which asking again makes sense (429 / 503 with Retry-After). */
  retryAt?: number;
  /** HTTP status when the server answered. */
  status?: number;
}

export type CheckOutcome = CheckSuccess | CheckFailure;
