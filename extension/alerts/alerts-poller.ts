import type { Fetch } from '../../ui/api/server-request';
import type { AlertsCheck, AlertsProblem } from '../common/setup-answers';
import { ALERTS_PROBLEM_WORDS, requestAlerts, type AlertsAnswer } from './alerts-request';
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

const NOT_CHECKED: AlertsCheck = { checked: false };

/**
 * The background's alerts check: asks the server for the alerts after the last one seen, notifies a new batch once
 * and counts it on the toolbar icon until the popup is opened. Failures are silent (no notification) but kept for the
 * popup. One check or "seen" at a time, so an alarm, a start-up and a settings change never count an alert twice;
 * asked again while a check waits its turn, that one check answers both (a policy change and a Save arriving together
 * make one request).
 */
export class AlertsPoller {
  private queue: Promise<unknown> = Promise.resolve();
  /** The check queued and not yet started, if any: it will read the settings as they are when it starts. */
  private waiting: Promise<AlertsCheck> | null = null;
  private readonly now: () => number;

  constructor(private readonly deps: AlertsPollerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Checks now (after any check under way), and says what it found out. Never rejects. */
  poll(): Promise<AlertsCheck> {
    this.waiting ??= this.serially(() => {
      this.waiting = null;
      return this.check();
    }).catch(() => NOT_CHECKED);
    return this.waiting;
  }

  /**
   * The popup was opened: a failure it would show is checked again first (the network is back, the key was fixed),
   * then the count goes. Answers the stored alerts.
   */
  async opened(): Promise<StoredAlerts> {
    if ((await this.deps.load()).error !== null) await this.poll();
    return this.seen();
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

  private async check(): Promise<AlertsCheck> {
    // Switched off: not even a request the server would count against the key. What was stored stays for the popup.
    if (this.deps.enabled && !(await this.deps.enabled())) return NOT_CHECKED;
    const { serverUrl, apiKey } = await this.deps.config();
    const stored = await this.deps.load();
    const failed = async (problem: AlertsProblem): Promise<AlertsCheck> => {
      await this.deps.save(checkFailed(stored, serverUrl, ALERTS_PROBLEM_WORDS[problem], this.now()));
      return { checked: true, problem };
    };
    if (!serverUrl || !apiKey) return failed('not_configured');
    let permitted: boolean;
    try {
      permitted = await this.deps.hasPermission(serverUrl);
    } catch {
      permitted = false;
    }
    if (!permitted) return failed('no_permission');
    const since = stored.serverUrl === serverUrl ? stored.lastId : null;
    let answer: AlertsAnswer;
    try {
      answer = await requestAlerts(this.deps.fetch, serverUrl, apiKey, since);
    } catch {
      answer = { ok: false, problem: 'unexpected' };
    }
    if (!answer.ok) return failed(answer.problem);
    const { state, fresh } = takeAlerts(stored, serverUrl, answer.alerts, this.now());
    await this.deps.save(state);
    await this.deps.showCount(badgeCount(state.unread));
    if (fresh.length > 0) {
      try {
        await this.deps.notify({
          id: `${ALERTS_NOTIFICATION_PREFIX}${state.lastId ?? ''}`,
          ...notificationFor(fresh),
        });
      } catch {
        // Notifications switched off for the browser: the count and the popup's list still say it.
      }
    }
    return { checked: true, problem: null };
  }
}
