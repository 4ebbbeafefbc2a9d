import { AlertsData, type Alert } from '../../shared/api/alerts';
import { ErrorEnvelope, successEnvelope } from '../../shared/api/envelope';
import { GATEWAY_STATUSES, sendRequest, type Fetch } from '../../ui/api/server-request';
import { allSeen, badgeCount, checkFailed, notificationFor, takeAlerts, type StoredAlerts } from './alerts-state';

export interface AlertsPollerDeps {
  fetch: Fetch;
  now?: () => number;
  /** The server URL and key in use (the organisation's or the person's), as the check uses them. */
  config(): Promise<{ serverUrl: string; apiKey: string }>;
  hasPermission(serverUrl: string): Promise<boolean>;
  /**
   * Whether alerts are checked at all (an organisation's policy can switch them off); asked at every check, so a
   * policy change applies to the next alarm. Default: on.
   */
  enabled?(): Promise<boolean>;
  load(): Promise<StoredAlerts>;
  save(state: StoredAlerts): Promise<void>;
  /** Shows one browser notification. */
  notify(notification: { id: string; title: string; message: string }): Promise<void>;
  /** Sets the count on the toolbar icon ('' takes it away). */
  showCount(text: string): Promise<void>;
}

/** The id of every alerts notification starts so (the background opens the alerts list when one is clicked). */
export const ALERTS_NOTIFICATION_PREFIX = 'dte-alerts-';

type AlertsAnswer = { ok: true; alerts: Alert[] } | { ok: false; error: string };

/** GET /api/v1/alerts?since=<id> with the API key; every failure in words. */
export async function requestAlerts(
  fetchFn: Fetch,
  serverUrl: string,
  apiKey: string,
  since: string | null,
): Promise<AlertsAnswer> {
  const query = since === null ? '' : `?since=${encodeURIComponent(since)}`;
  const answer = await sendRequest(fetchFn, `${serverUrl}/api/v1/alerts${query}`, {
    method: 'GET',
    headers: { 'x-api-key': apiKey },
    credentials: 'omit',
  });
  if (!answer) return { ok: false, error: 'the server could not be reached.' };
  const { response, body } = answer;
  if (response.ok) {
    const parsed = successEnvelope(AlertsData).safeParse(body);
    if (parsed.success) return { ok: true, alerts: parsed.data.data.alerts };
    return { ok: false, error: `the server gave an unexpected answer (HTTP ${response.status}).` };
  }
  const envelope = ErrorEnvelope.safeParse(body);
  if (envelope.success) return { ok: false, error: `${envelope.data.error.message} (HTTP ${response.status}).` };
  if (GATEWAY_STATUSES.has(response.status)) return { ok: false, error: 'the server could not be reached.' };
  if (response.status === 404) return { ok: false, error: 'this server has no alerts (HTTP 404).' };
  return { ok: false, error: `the server answered HTTP ${response.status}.` };
}

/**
 * The background's alerts check: asks the server for the alerts after the last one seen, notifies a new batch once
 * and counts it on the toolbar icon until the popup is opened. Failures are silent (no notification) but kept for the
 * popup. One check or "seen" at a time, so an alarm, a start-up and a settings change never count an alert twice.
 */
export class AlertsPoller {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly deps: AlertsPollerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Checks now (after any check under way). Never rejects. */
  poll(): Promise<void> {
    return this.serially(() => this.check()).catch(() => undefined);
  }

  /** The popup was opened: the count goes. Answers the stored alerts. */
  seen(): Promise<StoredAlerts> {
    return this.serially(async () => {
      const state = allSeen(await this.deps.load());
      await this.deps.save(state);
      await this.deps.showCount('');
      return state;
    });
  }

  /** Puts the stored count back on the icon (a browser start clears it). */
  restoreCount(): Promise<void> {
    return this.serially(async () => this.deps.showCount(badgeCount((await this.deps.load()).unread)));
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async check(): Promise<void> {
    // Switched off: not even a request the server would count against the key. What was stored stays for the popup.
    if (this.deps.enabled && !(await this.deps.enabled())) return;
    const { serverUrl, apiKey } = await this.deps.config();
    const stored = await this.deps.load();
    const failed = (error: string) => this.deps.save(checkFailed(stored, serverUrl, error, this.now()));
    if (!serverUrl || !apiKey) {
      await failed('save the Server URL and the API key in the options.');
      return;
    }
    let permitted: boolean;
    try {
      permitted = await this.deps.hasPermission(serverUrl);
    } catch {
      permitted = false;
    }
    if (!permitted) {
      await failed('the browser has not allowed access to the server: open the options and allow it.');
      return;
    }
    const since = stored.serverUrl === serverUrl ? stored.lastId : null;
    let answer: AlertsAnswer;
    try {
      answer = await requestAlerts(this.deps.fetch, serverUrl, apiKey, since);
    } catch {
      answer = { ok: false, error: 'the server gave an unexpected answer.' };
    }
    if (!answer.ok) {
      await failed(answer.error);
      return;
    }
    const { state, fresh } = takeAlerts(stored, serverUrl, answer.alerts, this.now());
    await this.deps.save(state);
    await this.deps.showCount(badgeCount(state.unread));
    if (fresh.length === 0) return;
    try {
      await this.deps.notify({ id: `${ALERTS_NOTIFICATION_PREFIX}${state.lastId ?? ''}`, ...notificationFor(fresh) });
    } catch {
      // Notifications switched off for the browser: the count and the popup's list still say it.
    }
  }
}
