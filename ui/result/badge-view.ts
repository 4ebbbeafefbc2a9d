import { answerCoverage } from '../../shared/eligibility/lga-coverage';
import type { ClientCheckData } from './check-answer';
import type { CheckOutcome, Problem } from './outcome';
import { partialWords } from './partial-cover';
import { waitWords } from './wait-words';

/**
 * `partial`: eligible only if the patient lives in one of the covered council areas of a postcode that spans several
 * (coverage `some`), never green. `neutral` is any answer that is not an eligibility result (an error or a setup
 * step); `pending` is a check under way.
 */
export type Tone = 'green' | 'amber' | 'partial' | 'red' | 'neutral' | 'pending';

export interface BadgeView {
  tone: Tone;
  /** The words on the badge. Colour is never the only signal: these say everything the colour says. */
  label: string;
  /** A longer explanation for the panel and the badge's tooltip. */
  detail: string;
  /** A glyph beside the words; decorative (hidden from assistive technology). */
  icon: string;
  /**
   * The compact badge's word, where there is little room: beside the coloured dot it still says what the colour
   * says. The full `label` stays the badge's accessible name and shows on hover and focus.
   */
  short: string;
}

/** Problems the user fixes in the options or with the clinic's account. */
const SETUP_PROBLEMS: ReadonlySet<Problem> = new Set([
  'not_configured',
  'no_key',
  'no_permission',
  'invalid_key',
  'subscription_inactive',
  'redirected',
]);

function lgaWords(data: ClientCheckData): string {
  // Without `lgas` (a server that does not send it) only the principal LGA is known.
  const lgas = data.location.lgas ?? [];
  if (lgas.length <= 1) return data.location.lga_name;
  return `${data.location.lga_name} + ${lgas.length - 1} more council area${lgas.length === 2 ? '' : 's'}`;
}

export function secondsUntil(retryAt: number | undefined, now: number): number {
  if (retryAt === undefined) return 0;
  return Math.max(1, Math.ceil((retryAt - now) / 1000));
}

const PROBLEM_WORDS: Record<Exclude<Problem, 'rate_limited'>, { label: string; detail: string }> = {
  not_configured: {
    label: 'Set server URL in options',
    detail: 'The extension does not know which server to ask yet. Open the extension options and enter the Server URL.',
  },
  no_key: {
    label: 'Set API key in options',
    detail: "No API key is saved in this browser. Open the extension options, then save your clinic's API key.",
  },
  no_permission: {
    label: 'Allow server access in options',
    detail:
      'The browser has not allowed the extension to reach the configured server. Open the options and allow access to the server (Save, or Allow access when your organisation set the server).',
  },
  invalid_key: {
    label: 'Key invalid',
    detail:
      // Not "generate a new key": whoever reads the badge may have no account, and a new key stops every other
      // workstation that holds the current one.
      "The server did not accept this browser's API key: it is unknown or has been revoked. Ask your practice manager or IT provider for the clinic's current key.",
  },
  subscription_inactive: {
    label: 'Subscription inactive',
    detail: "The clinic's Clinic-Wide Access subscription is inactive or has expired.",
  },
  unreachable: {
    label: 'Server unreachable',
    detail:
      'The eligibility server could not be reached. Check the network connection and the Server URL in the options.',
  },
  redirected: {
    label: 'Server address moved',
    detail:
      "The server's address sends the extension to another address, so the check was not sent. Ask the clinic's IT provider to enter the server's new address in the extension's options.",
  },
  data_unavailable: {
    label: 'Data not available yet',
    // badgeView adds the wait the server asked for, when the answer says it; no wait is made up.
    detail: 'The server has not finished loading disaster data yet.',
  },
  postcode_not_found: {
    label: 'Postcode not found',
    detail: 'This postcode is well formed but is not in the postcode data. Check the postcode.',
  },
  invalid_postcode: {
    label: 'Not an Australian postcode',
    detail: 'Australian postcodes are 4 digits in 0200–0299 or 0800–9999.',
  },
  not_checked_yet: {
    label: 'Not checked yet — scroll to it or click to check',
    detail:
      "This page has many postcodes. The extension checks the ones on screen first and only a few each minute, so the clinic's checks are left for the other computers. Scroll to it, or press the badge to check it now.",
  },
  server_error: {
    label: 'Server error — try again',
    detail: 'The server answered with an error. Try again; if it keeps happening, tell the clinic IT contact.',
  },
};

/** The badge for a check outcome (or a check under way), in words. */
export function badgeView(outcome: CheckOutcome | { pending: string }, now: number = Date.now()): BadgeView {
  if ('pending' in outcome) {
    return {
      tone: 'pending',
      label: `Checking ${outcome.pending}…`,
      detail: 'Asking the eligibility server.',
      icon: '…',
      short: 'Checking',
    };
  }
  if (!outcome.ok) {
    if (outcome.problem === 'rate_limited') {
      const seconds = secondsUntil(outcome.retryAt, now);
      return {
        tone: 'neutral',
        label: `Rate limited — wait ${seconds} s`,
        detail: `Too many checks in the last minute for this API key. The extension asks again in ${seconds} s.`,
        icon: '!',
        short: `Wait ${seconds} s`,
      };
    }
    const words = PROBLEM_WORDS[outcome.problem];
    const detail =
      outcome.problem === 'data_unavailable' && outcome.retryAt !== undefined
        ? `${words.detail} Try again in ${waitWords(secondsUntil(outcome.retryAt, now))}.`
        : words.detail;
    const short = SETUP_PROBLEMS.has(outcome.problem)
      ? 'Set up'
      : outcome.problem === 'postcode_not_found' || outcome.problem === 'invalid_postcode'
        ? 'Check'
        : outcome.problem === 'not_checked_yet'
          ? 'Not checked'
          : 'Error';
    return { tone: 'neutral', label: words.label, detail, icon: '!', short };
  }
  const { summary } = outcome.data;
  if (!summary.is_eligible) {
    return {
      tone: 'red',
      label: `Not eligible · ${lgaWords(outcome.data)}`,
      detail: summary.headline_text,
      icon: '✕',
      short: 'Not eligible',
    };
  }
  if (answerCoverage(outcome.data) === 'some') {
    // Eligible only if the patient lives in a covered council area: not a tick, whatever the colour of the answer.
    return { tone: 'partial', ...partialWords(outcome.data), icon: '◐', short: 'Check area' };
  }
  const tone: Tone = summary.status_color === 'amber' ? 'amber' : 'green';
  const eligible = tone === 'amber' ? 'Eligible (long-running)' : 'Eligible';
  const label = `${eligible} · ${lgaWords(outcome.data)}`;
  return { tone, label, detail: summary.headline_text, icon: '✓', short: 'Eligible' };
}
