import type { Alert } from '../../shared/api/alerts';

/** The alerts one refresh produced for one subscription, oldest first. */
export interface AlertBatch {
  subscription_id: string;
  alerts: Alert[];
}

/** Told of every committed batch of new alerts (one array per processed refresh, one entry per subscription). */
export type AlertsListener = (batches: AlertBatch[]) => void;

/**
 * Which subscriptions' alerts the listeners want: 'all', or those named (a listener that wants only some, the webhook
 * delivery: the subscriptions with a webhook). A national refresh records hundreds of thousands of alerts; only the
 * wanted ones are read back into memory to be announced.
 */
export type Wanted = 'all' | ReadonlySet<string>;

/**
 * Where the alerts of a processed refresh are announced, once they are committed: by the process that committed them
 * (another instance finds the refresh already processed and announces nothing), so a listener such as the webhook
 * delivery sees each alert once across all instances. A listener that throws is logged and does not stop the others.
 */
export class AlertEvents {
  private readonly listeners = new Map<AlertsListener, (() => Iterable<string>) | undefined>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => undefined) {}

  /**
   * Registers `listener`, for the subscriptions `wanted` names at each refresh (all when absent); returns a function
   * that removes it.
   */
  onAlerts(listener: AlertsListener, wanted?: () => Iterable<string>): () => void {
    this.listeners.set(listener, wanted);
    return () => this.listeners.delete(listener);
  }

  /** The subscriptions some listener wants now (all, with no listener: the caller then hears them). */
  wanted(): Wanted {
    if (this.listeners.size === 0) return 'all';
    const union = new Set<string>();
    for (const wanted of this.listeners.values()) {
      if (!wanted) return 'all';
      for (const id of wanted()) union.add(id);
    }
    return union;
  }

  emit(batches: AlertBatch[]): void {
    if (batches.length === 0) return;
    for (const [listener, wanted] of this.listeners) {
      const ids = wanted && new Set(wanted());
      const theirs = ids ? batches.filter((b) => ids.has(b.subscription_id)) : batches;
      if (theirs.length === 0) continue;
      try {
        listener(theirs);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
