import { storage } from 'wxt/utils/storage';
import type { Alert } from '../../shared/api/alerts';

/** What the background knows of the alerts of the configured server (all in `storage.local`). */
export interface StoredAlerts {
  /** The server the alerts and `lastId` are from: another server's ids mean nothing, so they start over. */
  serverUrl: string;
  /** The newest alert id seen (the next check asks `since` it); null: none yet. */
  lastId: string | null;
  /** When this server was first checked successfully; null: never (the next check is the first). */
  firstCheckedAt: string | null;
  /** The most recent alerts, newest first, at most 50 (extension/alerts/alerts-state.ts, KEPT_ALERTS). */
  alerts: Alert[];
  /** Alerts notified since the popup was last opened: the count on the toolbar icon. */
  unread: number;
  /** When the last check happened (ISO), whether or not it succeeded. */
  checkedAt: string | null;
  /** Why the last check failed, in words for the popup ("Could not check alerts: …"); null when it succeeded. */
  error: string | null;
}

export const NO_ALERTS: StoredAlerts = {
  serverUrl: '',
  lastId: null,
  firstCheckedAt: null,
  alerts: [],
  unread: 0,
  checkedAt: null,
  error: null,
};

export const alertsItem = storage.defineItem<StoredAlerts>('local:alerts', { fallback: NO_ALERTS });
