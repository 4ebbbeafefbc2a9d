import type { Alert } from '../../shared/api/alerts';

/** The alerts one refresh produced for one subscription, oldest first. */
export interface AlertBatch {
  subscription_id: string;
  alerts: Alert[];
}

/** Told of every committed batch of new alerts (one array per processed refresh, one entry per subscription). */
export type AlertsListener = (batches: AlertBatch[]) => void;

/**
 * Where the alerts of a processed refresh are announced, once they are committed: by the process that committed them
 * (another instance finds the refresh already processed and announces nothing), so a listener such as the webhook
 * delivery sees each alert once across all instances. A listener that throws is logged and does not stop the others.
 */
export class AlertEvents {
  private readonly listeners = new Set<AlertsListener>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => undefined) {}

  /** Registers `listener`; returns a function that removes it. */
  onAlerts(listener: AlertsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(batches: AlertBatch[]): void {
    if (batches.length === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(batches);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
