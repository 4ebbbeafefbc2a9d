import type { ByHandFailure } from './check-api';
import { waitWords } from '../../../../ui/result/wait-words';

export interface FailureWords {
  /** The heading of the answer: what happened, in a few words. */
  title: string;
  /** What it means and what to do. */
  text: string;
}

/**
 * A refused check by hand in words a GP at the front desk can act on. `otherwise`: the console's words for the
 * failures every page says alike (a session that ended, a refused origin, a role changed meanwhile).
 */
export function checkFailureWords(failure: ByHandFailure, otherwise: (failure: ByHandFailure) => string): FailureWords {
  const { postcode, suburb } = failure.request;
  switch (failure.code) {
    case 'invalid_postcode':
      return {
        title: 'Not an Australian postcode',
        text: `“${postcode}” is not an Australian postcode: postcodes are 4 digits, in 0200–0299 or 0800–9999.`,
      };
    case 'postcode_not_found':
      return {
        title: 'Postcode not found',
        text: `Postcode ${postcode} is well formed but is not in the postcode data. Check the postcode.`,
      };
    case 'invalid_suburb':
      return {
        title: 'Suburb not in this postcode',
        text: `“${suburb ?? ''}” is not a suburb of postcode ${postcode}. Check its spelling, or leave Suburb empty.`,
      };
    case 'subscription_inactive':
      return {
        title: 'Subscription inactive',
        text: "Your organisation's Clinic-Wide Access subscription is inactive or has expired, so checks are refused. Ask your practice's owner to renew it.",
      };
    case 'rate_limited':
      return {
        title: 'Too many checks',
        // The limit is per minute, so a minute is always long enough when the server did not say.
        text: `Your organisation has used its checks for the last minute. Wait ${waitWords(failure.retryAfter ?? 60)}, then check again.`,
      };
    case 'data_unavailable':
      return {
        title: 'Data not available yet',
        text:
          failure.retryAfter === undefined
            ? 'The server has not finished loading the disaster data. Try again later.'
            : `The server has not finished loading the disaster data. Try again in ${waitWords(failure.retryAfter)}.`,
      };
    case 'unreachable':
      return {
        title: 'Server unreachable',
        text: 'The server could not be reached. Check the network connection, then try again.',
      };
    default:
      if (failure.status === 503) {
        return { title: 'Server unavailable', text: `${failure.message}.` };
      }
      return { title: 'Could not check the postcode', text: otherwise(failure) };
  }
}
