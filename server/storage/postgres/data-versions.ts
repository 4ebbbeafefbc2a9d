import pg from 'pg';
import type { Logger } from '../../logger';

/** A document held in memory whose freshness is its `data_version` counter (PostgresDocumentStore). */
export interface VersionedDocument {
  /** Its row in data_version. */
  readonly name: string;
  /** The data_version of the content it holds; -1 before the first load. */
  readonly version: number;
  /** Reloads (never two reloads at once) until it holds at least `version`; rejects when a reload fails. */
  catchUp(version: number): Promise<void>;
}

export interface DataVersionsOptions {
  pool: pg.Pool;
  /** How to open the dedicated LISTEN connection (the pool's settings). */
  clientConfig: pg.ClientConfig;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** How often to read every counter while listening, in case a notification was lost. Default 1 s. */
  pollIntervalMs?: number;
}

const VERSIONS_SQL = 'SELECT name, version::text AS version FROM data_version';
const CHANNEL = 'data_version';
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;
/** Repeated failures (database down) are logged once per this long, not once per poll. */
const LOG_EVERY_MS = 30_000;

const ignore = () => undefined;

/**
 * Keeps the in-memory documents of this process (registered stores) as fresh as the database, whoever wrote it.
 *
 * - `listen()`: a dedicated connection LISTENs on `data_version` (each commit of a document announces `name:version`),
 *   and the stores behind reload. It reconnects with backoff when it dies, and every counter is also read once a
 *   second, so that a notification lost with a connection is made up for within about a second.
 * - `sync()`: for what must not wait for a notification (a key revoked on another instance is refused on this one's
 *   very next request): resolves once every registered store holds what was committed before the call. It is called
 *   on every authenticated request, so concurrent calls share one query: a call is answered by the first version query
 *   that *starts* after it (one started before could miss a commit made just before the call), so however many
 *   requests arrive there is at most one query running and one waiting to start, which every later caller joins.
 *   Reloads are shared the same way, by the stores.
 * - `committed()`: what the stores call after each commit, before their caller is answered. With Redis it moves the
 *   data epoch (`announceCommitsWith`, wired by the storage registry), from which every instance's next check learns
 *   that it must sync (data-epoch.ts) without asking the database on every request.
 */
export class DataVersions {
  private readonly documents = new Map<string, Set<VersionedDocument>>();
  private readonly pollIntervalMs: number;
  /** The version query running now, if any. */
  private running: Promise<Map<string, number>> | null = null;
  /** The one that starts when `running` ends: what a call made now is answered by. */
  private next: Promise<Map<string, number>> | null = null;
  private listening = false;
  private closed = false;
  private listener: pg.Client | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectAttempts = 0;
  private polling = false;
  private lastLogged = new Map<string, number>();
  private announce: (() => Promise<void>) | null = null;

  constructor(private readonly options: DataVersionsOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
  }

  /** Keeps `document` fresh (listening, polling) and waited for by `sync()`. Returns the way to stop. */
  register(document: VersionedDocument): () => void {
    let set = this.documents.get(document.name);
    if (!set) this.documents.set(document.name, (set = new Set()));
    set.add(document);
    return () => {
      set.delete(document);
      if (set.size === 0 && this.documents.get(document.name) === set) this.documents.delete(document.name);
    };
  }

  /** Has every later commit of this process's stores announced by `announce` (which must not reject). */
  announceCommitsWith(announce: () => Promise<void>): void {
    this.announce = announce;
  }

  /** Called by a store once it committed and holds the commit: resolves when it has been announced, if need be. */
  committed(): Promise<void> {
    return this.announce ? this.announce() : Promise.resolve();
  }

  /** Starts listening for other processes' commits (and polling as a fallback). Idempotent. */
  listen(): void {
    if (this.listening || this.closed) return;
    this.listening = true;
    void this.connectListener();
    this.pollTimer = setInterval(() => this.poll(), this.pollIntervalMs);
    this.pollTimer.unref();
  }

  /** Resolves once every registered store holds at least the versions committed before this call. */
  async sync(): Promise<void> {
    if (this.closed || this.documents.size === 0) return;
    const versions = await this.versionsAfterNow();
    await this.catchUp(versions);
  }

  /** Stops listening and polling; the stores are closed by their owners. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.pollTimer = this.reconnectTimer = null;
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(ignore);
    await Promise.all([this.running?.catch(ignore), this.next?.catch(ignore)]);
  }

  private versionsAfterNow(): Promise<Map<string, number>> {
    if (this.next) return this.next;
    if (!this.running) return this.startQuery();
    const next = this.running.then(ignore, ignore).then(() => {
      this.next = null;
      return this.startQuery();
    });
    this.next = next;
    return next;
  }

  private startQuery(): Promise<Map<string, number>> {
    const query = this.options.pool
      .query<{ name: string; version: string }>(VERSIONS_SQL)
      .then(({ rows }) => new Map(rows.map((r) => [r.name, Number(r.version)])));
    this.running = query;
    const done = () => {
      if (this.running === query) this.running = null;
    };
    query.then(done, done);
    return query;
  }

  private async catchUp(versions: ReadonlyMap<string, number>): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const [name, set] of this.documents) {
      const version = versions.get(name);
      if (version === undefined) continue;
      for (const document of set) if (document.version < version) waits.push(document.catchUp(version));
    }
    await Promise.all(waits);
  }

  private poll(): void {
    if (this.polling || this.closed) return;
    this.polling = true;
    this.sync()
      .catch((err: unknown) => this.logRarely('poll', 'warn', err, 'could not check the database for data changes'))
      .finally(() => (this.polling = false));
  }

  private onNotification(payload: string | undefined): void {
    const colon = payload?.lastIndexOf(':') ?? -1;
    if (!payload || colon < 0) return;
    const name = payload.slice(0, colon);
    const version = Number(payload.slice(colon + 1));
    if (!Number.isSafeInteger(version)) return;
    for (const document of this.documents.get(name) ?? []) {
      if (document.version >= version) continue;
      document.catchUp(version).catch((err: unknown) => {
        this.logRarely(`reload:${name}`, 'error', err, `could not reload ${name} changed by another instance`);
      });
    }
  }

  private async connectListener(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.options.clientConfig);
    this.listener = client;
    let lost = false;
    const onLost = (err: unknown) => {
      if (lost) return;
      lost = true;
      client.removeAllListeners('notification');
      client.end().catch(ignore);
      if (this.listener === client) this.listener = null;
      if (!this.closed) this.scheduleReconnect(err);
    };
    // An 'error' on this connection (server restart, network) must not crash the process: it is reconnected instead.
    client.on('error', onLost);
    client.on('end', () => onLost(new Error('the LISTEN connection ended')));
    client.on('notification', (message) => {
      if (message.channel === CHANNEL) this.onNotification(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      onLost(err);
      return;
    }
    if (lost || this.closed) return;
    if (this.reconnectAttempts > 0) this.options.logger.info('listening for data changes again');
    this.reconnectAttempts = 0;
    // Whatever was committed while nobody listened.
    this.poll();
  }

  private scheduleReconnect(err: unknown): void {
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.reconnectAttempts);
    this.reconnectAttempts++;
    this.logRarely(
      'listen',
      'warn',
      err,
      'lost the connection that listens for data changes: reconnecting (changes are polled meanwhile)',
    );
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connectListener();
    }, delay);
    this.reconnectTimer.unref();
  }

  private logRarely(topic: string, level: 'warn' | 'error', err: unknown, message: string): void {
    const now = Date.now();
    if (now - (this.lastLogged.get(topic) ?? -Infinity) < LOG_EVERY_MS) return;
    this.lastLogged.set(topic, now);
    this.options.logger[level]({ err }, message);
  }
}
