import type { Alert } from '../../shared/api/alerts';
import { NO_ALERTS, type StoredAlerts } from '../common/alerts-storage';

export { alertsItem, NO_ALERTS, type StoredAlerts } from '../common/alerts-storage';

/** The alarm of the background's alerts check, and how often it fires. */
export const ALERTS_ALARM = 'alerts';
export const ALERTS_PERIOD_MINUTES = 60;

/** How many alerts the popup can list; older ones are dropped (see StoredAlerts). */
export const KEPT_ALERTS = 50;

/**
 * On the first successful check against a server, alerts created up to this long ago are news and
 * are notified; older ones are listed in the popup without a notification or a count. A clinic that sets up the
 * extension the day a declaration starts hears about it; one that sets it up months later is not flooded with old
 * news.
 */
export const FIRST_CHECK_WINDOW_MS = 24 * 60 * 60_000;

/** Orders alert ids (decimal strings, possibly beyond 2^53): negative when `a` is older. */
export function compareIds(a: string, b: string): number {
  const x = a.replace(/^0+(?=.)/, '');
  const y = b.replace(/^0+(?=.)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The state for `serverUrl`: as stored, or empty when it was another server's. */
function forServer(state: StoredAlerts, serverUrl: string): StoredAlerts {
  return state.serverUrl === serverUrl ? state : { ...NO_ALERTS, serverUrl };
}

/**
 * A successful check's answer (the server's alerts after `lastId`, oldest first) taken in: the new alerts are listed
 * and the newest id remembered; `fresh` are the ones to notify and count (on a first check, only those of the last
 * FIRST_CHECK_WINDOW_MS). An alert already listed is never counted twice.
 */
export function takeAlerts(
  stored: StoredAlerts,
  serverUrl: string,
  incoming: readonly Alert[],
  now: number,
): { state: StoredAlerts; fresh: Alert[] } {
  const state = forServer(stored, serverUrl);
  const listed = new Set(state.alerts.map((a) => a.id));
  const newer = incoming.filter(
    (a) => !listed.has(a.id) && (state.lastId === null || compareIds(a.id, state.lastId) > 0),
  );
  const fresh =
    state.firstCheckedAt === null
      ? newer.filter((a) => {
          const created = Date.parse(a.created_at);
          return Number.isNaN(created) || created >= now - FIRST_CHECK_WINDOW_MS;
        })
      : newer;
  const lastId = incoming.reduce<string | null>(
    (max, a) => (max === null || compareIds(a.id, max) > 0 ? a.id : max),
    state.lastId,
  );
  const alerts = [...newer, ...state.alerts].sort((a, b) => compareIds(b.id, a.id)).slice(0, KEPT_ALERTS);
  return {
    state: {
      ...state,
      lastId,
      firstCheckedAt: state.firstCheckedAt ?? new Date(now).toISOString(),
      alerts,
      unread: state.unread + fresh.length,
      checkedAt: new Date(now).toISOString(),
      error: null,
    },
    fresh,
  };
}

/** A failed check: the alerts stay as they were, the reason is kept for the popup. */
export function checkFailed(stored: StoredAlerts, serverUrl: string, error: string, now: number): StoredAlerts {
  return { ...forServer(stored, serverUrl), checkedAt: new Date(now).toISOString(), error };
}

/** The popup was opened: nothing is unread any more. */
export function allSeen(stored: StoredAlerts): StoredAlerts {
  return stored.unread === 0 ? stored : { ...stored, unread: 0 };
}

/** One notification for a batch: "3 disaster alerts for your catchment", the first alert's text "(and 2 more)". */
export function notificationFor(fresh: readonly Alert[]): { title: string; message: string } {
  const n = fresh.length;
  const first = fresh[0]?.text ?? '';
  return {
    title: n === 1 ? 'A disaster alert for your catchment' : `${n} disaster alerts for your catchment`,
    message: n > 1 ? `${first} (and ${n - 1} more)` : first,
  };
}

/** The count on the toolbar icon: empty at 0, "99+" beyond 99. */
export function badgeCount(unread: number): string {
  if (unread <= 0) return '';
  return unread > 99 ? '99+' : String(unread);
}
