/**
 * What the background answers about a server and key (messaging.ts): to the options page before and after a Save, and
 * kept with the alerts for the popup. Types only, so the pages and the background share them without importing each
 * other.
 */

/**
 * Whether a server URL is worth saving: `ok` when it answers as this service does; `unreachable` when nothing answers
 * (a mistyped host, a server that is down, a network that blocks it); `not_this_service` when something answers that
 * is not it (a mistyped path, the clinic's website, the console's page instead of the server's address); `redirected`
 * when the address sends elsewhere (never followed: the extension's calls carry a key, a cookie or a password).
 */
export type ServerProbe = 'ok' | 'unreachable' | 'not_this_service' | 'redirected';

/** Why an alerts check found nothing out (each has its words in extension/alerts/alerts-request.ts). */
export type AlertsProblem =
  | 'not_configured'
  | 'no_permission'
  | 'unreachable'
  | 'redirected'
  | 'invalid_key'
  | 'subscription_inactive'
  | 'busy'
  | 'no_data'
  | 'no_alerts'
  | 'server_error'
  | 'unexpected';

/**
 * What one alerts check found out: `checked` false when none was made (alerts switched off, or a check that broke);
 * otherwise the problem that stopped it, or null when the server answered.
 */
export type AlertsCheck = { checked: false } | { checked: true; problem: AlertsProblem | null };
