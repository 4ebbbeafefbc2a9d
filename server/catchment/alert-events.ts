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

/** Which subscriptions a listener wants: asked once per refresh, before it is processed. */
export type WantedSubscriptions = () => Iterable<string> | Promise<Iterable<string>>;

/** One refresh's listeners, as they were when it started: what to read back, and where to announce it. */
export interface AnnounceRound {
  /** The subscriptions some listener wants (all, with no listener: the caller then hears them). */
  readonly announce: Wanted;
  /** Tells each listener of the committed batches it wants. */
  emit(batches: readonly AlertBatch[]): void;
}

/**
 * Where the alerts of a processed refresh are announced, once they are committed: by the process that committed them
 * (another instance finds the refresh already processed and announces nothing), so a listener such as the webhook
 * delivery sees each alert once across all instances. A listener that throws is logged and does not stop the others.
 */
export class AlertEvents {
  private readonly listeners = new Map<AlertsListener, WantedSubscriptions | undefined>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => undefined) {}

  /**
   * Registers `listener`, for the subscriptions `wanted` names at each refresh (all when absent); returns a function
   * that removes it. `wanted` may ask the database: it is called once per refresh, before processing starts, so a
   * webhook set on another instance a moment ago is wanted.
   */
  onAlerts(listener: AlertsListener, wanted?: WantedSubscriptions): () => void {
    this.listeners.set(listener, wanted);
    return () => this.listeners.delete(listener);
  }

  /** Asks every listener what it wants now, for the refresh about to be processed. */
  async round(): Promise<AnnounceRound> {
    const listeners = await Promise.all(
      [...this.listeners].map(async ([listener, wanted]) => ({
        listener,
        ids: wanted ? new Set(await wanted()) : null,
      })),
    );
    let announce: Wanted = 'all';
    if (listeners.length > 0 && listeners.every((l) => l.ids)) {
      announce = new Set(listeners.flatMap((l) => [...l.ids!]));
    }
    return {
      announce,
      emit: (batches) => {
        if (batches.length === 0) return;
        for (const { listener, ids } of listeners) {
          const theirs = ids ? batches.filter((b) => ids.has(b.subscription_id)) : [...batches];
          if (theirs.length === 0) continue;
          try {
            listener(theirs);
          } catch (err) {
            this.onListenerError(err);
          }
        }
      },
    };
  }
}
