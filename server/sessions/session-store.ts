import { hash } from 'node:crypto';
import path from 'node:path';
import session from 'express-session';
import { z } from 'zod';
import { ContractError } from '../contract-error';
import { JsonStore } from '../storage/json-store';
import { withTimeout } from '../storage/with-timeout';
import './session-types';

export const SessionRecord = z.object({
  /** The only thing a session says about its holder (no email, no roles): everything else is looked up per request. */
  account_id: z.string().min(1),
  created_at: z.string(),
  last_seen_at: z.string(),
  /** express-session's cookie settings (path, maxAge, flags) — needed to rebuild the session object, nothing secret. */
  cookie: z.record(z.string(), z.unknown()),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

export const SessionsFile = z.object({
  /** Keyed by SHA-256 of the session id: the file does not hold usable session ids. */
  sessions: z.record(z.string(), SessionRecord),
});
export type SessionsFile = z.infer<typeof SessionsFile>;

export interface SessionPolicy {
  /** A session unused for this long is over. */
  idleTimeoutMs: number;
  /** A session is over this long after sign-in, however busy. */
  absoluteTimeoutMs: number;
  clock: () => Date;
}

/** SHA-256 of the session id, hex: the key under which a session is stored. */
export function sessionKey(sid: string): string {
  return hash('sha256', sid, 'hex');
}

/**
 * How often a session's idle deadline is written at most: a thirtieth of the idle timeout, at most a minute. Idle
 * deadlines may end up this much early, which nobody notices, and a busy client costs no write per request.
 */
export function touchIntervalMs(policy: SessionPolicy): number {
  return Math.min(60_000, Math.floor(policy.idleTimeoutMs / 30));
}

/** The times a stored session is judged by (ms since the epoch, server clock). */
export interface SessionTimes {
  /** Sign-in: the absolute timeout runs from here. */
  createdAt: number;
  /** The last time the idle deadline was written. */
  lastSeenAt: number;
}

/** Whether a session with these times is over at `now`: idle too long, or too long since sign-in. */
export function isSessionExpired(times: SessionTimes, policy: SessionPolicy, now: number): boolean {
  return now >= times.lastSeenAt + policy.idleTimeoutMs || now >= times.createdAt + policy.absoluteTimeoutMs;
}

/** When a session with these times ends if left idle from `now` on: the idle deadline, capped by the absolute one. */
export function sessionExpiresAt(times: SessionTimes, policy: SessionPolicy, now: number): Date {
  return new Date(
    Math.min(Math.max(times.lastSeenAt, now) + policy.idleTimeoutMs, times.createdAt + policy.absoluteTimeoutMs),
  );
}

/**
 * A shared session store (Redis, PostgreSQL) that cannot be reached, or did not answer in time: the request is
 * answered 503 `session_unavailable` with Retry-After (the JSON error envelope), never with a crash or a hang, and
 * never as "signed out". A ContractError, so it becomes the envelope wherever it surfaces: in express-session's load
 * (passed to `next`), or in a handler awaiting regenerate, save or destroy.
 */
export class SessionStoreUnavailableError extends ContractError {
  override readonly name = 'SessionStoreUnavailableError';
  constructor(cause?: unknown) {
    super('session_unavailable', { retryAfterSeconds: 2, cause });
  }
}

type Callback = (err?: unknown) => void;

/**
 * Where the cookie sessions are kept: express-session's Store, with expiry decided on the server's clock. Three
 * implementations share one policy (idle timeout, absolute timeout from sign-in, touch written at most every
 * touchIntervalMs, only the SHA-256 of session ids and the account id stored): FileSessionStore (DATA_DIR),
 * RedisSessionStore and PostgresSessionStore; the storage registry (backends/registry.ts) picks one.
 */
export interface SessionStore extends session.Store {
  /** Where the sessions are kept. */
  readonly backend: 'file' | 'redis' | 'postgres';
  /**
   * When the session stored under this id ends if left idle from now on; undefined when there is none. Rejects with
   * SessionStoreUnavailableError when a shared store cannot be reached.
   */
  expiresAt(sid: string): Promise<Date | undefined>;
  /** Removes every expired session; returns how many were removed (0 where the backend expires them itself). */
  purge(): Promise<number>;
  /** Ends every session of an account (e.g. after its password changes). Returns how many were ended. */
  destroyAllFor(accountId: string): Promise<number>;
  /** Picks up sessions written by another server process sharing DATA_DIR (nothing to do for shared stores). */
  watch(): void;
  close(): Promise<void>;
}

/**
 * express-session's Store over a JsonStore file in DATA_DIR (`sessions.json`): sessions survive a restart, writes are
 * atomic and locked (several server processes may share the directory), and there is no MemoryStore leak.
 *
 * Expiry is decided here, on the server's clock, never on the cookie's word: a session is over after
 * `idleTimeoutMs` without a request or `absoluteTimeoutMs` after sign-in, whichever comes first. `get` does not return
 * an expired session; `touch` moves the idle deadline (written at most once per `touchIntervalMs`, so a busy client
 * does not cost a disk write per request); `purge` removes expired sessions from the file.
 */
export class FileSessionStore extends session.Store implements SessionStore {
  readonly backend = 'file';
  private readonly touchIntervalMs: number;

  private constructor(
    private readonly store: JsonStore<SessionsFile>,
    private readonly policy: SessionPolicy,
  ) {
    super();
    this.touchIntervalMs = touchIntervalMs(policy);
  }

  static async open(
    dataDir: string,
    policy: SessionPolicy,
    onReloadError?: (err: unknown) => void,
  ): Promise<FileSessionStore> {
    const store = await JsonStore.open({
      file: path.join(dataDir, 'sessions.json'),
      schema: SessionsFile,
      version: 1,
      defaults: () => ({ sessions: {} }),
      onReloadError,
    });
    return new FileSessionStore(store, policy);
  }

  get file(): string {
    return this.store.file;
  }

  /** When the session stored under this id ends if left idle from now on; undefined when there is none. */
  async expiresAt(sid: string): Promise<Date | undefined> {
    const record = this.live(sid);
    if (!record) return undefined;
    return sessionExpiresAt(recordTimes(record), this.policy, this.now());
  }

  override get(sid: string, callback: (err: unknown, session?: session.SessionData | null) => void): void {
    const record = this.live(sid);
    if (!record) return callback(null, null);
    callback(null, {
      cookie: structuredClone(record.cookie),
      accountId: record.account_id,
      // As every store gives it (session-types.ts), though this one reads its own record when touched.
      lastSeenAt: Date.parse(record.last_seen_at),
    } as unknown as session.SessionData);
  }

  override set(sid: string, data: session.SessionData, callback?: Callback): void {
    const accountId = data.accountId;
    if (typeof accountId !== 'string' || accountId === '') {
      // Nothing worth keeping: a session exists only for a signed-in account.
      this.destroy(sid, callback);
      return;
    }
    const key = sessionKey(sid);
    const now = this.clockIso();
    const cookie = JSON.parse(JSON.stringify(data.cookie ?? {})) as Record<string, unknown>;
    this.done(
      this.store.update((file) => {
        const existing = file.sessions[key];
        file.sessions[key] = {
          account_id: accountId,
          created_at: existing && existing.account_id === accountId ? existing.created_at : now,
          last_seen_at: now,
          cookie,
        };
      }),
      callback,
    );
  }

  override touch(sid: string, _data: session.SessionData, callback?: () => void): void {
    const record = this.live(sid);
    if (!record || this.now() - Date.parse(record.last_seen_at) < this.touchIntervalMs) {
      callback?.();
      return;
    }
    const key = sessionKey(sid);
    const now = this.clockIso();
    this.done(
      this.store.update((file) => {
        const current = file.sessions[key];
        if (current && !this.isExpired(current) && current.last_seen_at < now) current.last_seen_at = now;
      }),
      callback,
    );
  }

  override destroy(sid: string, callback?: Callback): void {
    const key = sessionKey(sid);
    if (!(key in this.store.current.sessions)) {
      callback?.();
      return;
    }
    this.done(
      this.store.update((file) => {
        delete file.sessions[key];
      }),
      callback,
    );
  }

  override length(callback: (err: unknown, length?: number) => void): void {
    callback(null, Object.values(this.store.current.sessions).filter((r) => !this.isExpired(r)).length);
  }

  override clear(callback?: Callback): void {
    this.done(
      this.store.update((file) => {
        file.sessions = {};
      }),
      callback,
    );
  }

  /** Removes every expired session from the file; returns how many were removed. */
  async purge(): Promise<number> {
    if (!Object.values(this.store.current.sessions).some((r) => this.isExpired(r))) return 0;
    return this.store.update((file) => {
      let removed = 0;
      for (const [key, record] of Object.entries(file.sessions)) {
        if (this.isExpired(record)) {
          delete file.sessions[key];
          removed++;
        }
      }
      return removed;
    });
  }

  /** Ends every session of an account (e.g. after its password changes). Returns how many were ended. */
  destroyAllFor(accountId: string): Promise<number> {
    return this.store.update((file) => {
      let removed = 0;
      for (const [key, record] of Object.entries(file.sessions)) {
        if (record.account_id === accountId) {
          delete file.sessions[key];
          removed++;
        }
      }
      return removed;
    });
  }

  /** Picks up sessions written by another server process sharing DATA_DIR. */
  watch(): this {
    this.store.watch();
    return this;
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private live(sid: string): SessionRecord | undefined {
    if (typeof sid !== 'string' || sid === '') return undefined;
    const record = this.store.current.sessions[sessionKey(sid)];
    return record && !this.isExpired(record) ? record : undefined;
  }

  private isExpired(record: SessionRecord): boolean {
    return isSessionExpired(recordTimes(record), this.policy, this.now());
  }

  private now(): number {
    return this.policy.clock().getTime();
  }

  private clockIso(): string {
    return this.policy.clock().toISOString();
  }

  private done(work: Promise<unknown>, callback?: Callback): void {
    work.then(
      () => callback?.(),
      (err: unknown) => (callback ? callback(err) : this.emit('error', err)),
    );
  }
}

/** A live session as a shared store (SharedSessionStore) loads it. */
export interface LoadedSession {
  accountId: string;
  /** express-session's cookie settings, a copy of its own. */
  cookie: Record<string, unknown>;
  times: SessionTimes;
}

const isSessionId = (sid: unknown): sid is string => typeof sid === 'string' && sid !== '';

/**
 * What the shared stores (RedisSessionStore, PostgresSessionStore) have in common: express-session's callback API over
 * their own operations, with the policy's rules applied here, the same for both, on this server's clock.
 *
 * - `get` gives the session with `lastSeenAt` (SessionData.lastSeenAt: when its idle deadline was last written), so
 *   that `touch` knows without a round trip whether a write is due: a request within the touch interval costs none.
 * - `set` of a session without an account destroys it: a session exists only for a signed-in account.
 * - A touch that fails is only a deadline not moved: it is reported as an 'error' event and the response goes out
 *   (express-session passes a touch error to `next` after the response has started, which would cut it off). Every
 *   other failure reaches the caller.
 * - Every operation runs `within` the store's timeout; any failure is SessionStoreUnavailableError (503
 *   `session_unavailable`).
 */
export abstract class SharedSessionStore extends session.Store implements SessionStore {
  abstract readonly backend: 'redis' | 'postgres';
  protected readonly touchIntervalMs: number;

  protected constructor(
    protected readonly policy: SessionPolicy,
    /** How long one command or query may take before the request is answered 503 `session_unavailable`. */
    private readonly timeoutMs: number,
  ) {
    super();
    this.touchIntervalMs = touchIntervalMs(policy);
  }

  /** The session stored under `sid` (a non-empty string) if it is live on this server's clock, else undefined. */
  protected abstract read(sid: string): Promise<LoadedSession | undefined>;
  /** Stores the session of a signed-in account, keeping the sign-in time of the same account's existing session. */
  protected abstract save(sid: string, accountId: string, data: session.SessionData): Promise<void>;
  /** Moves the idle deadline of the live session `sid` to `now`, if its last write is a touch interval old. */
  protected abstract refresh(sid: string, now: number): Promise<void>;
  /** Deletes the session `sid` (a non-empty string), if there is one. */
  protected abstract remove(sid: string): Promise<void>;
  /** How many sessions are stored. */
  protected abstract count(): Promise<number>;
  /** Deletes every session. */
  protected abstract removeAll(): Promise<void>;

  abstract purge(): Promise<number>;
  abstract destroyAllFor(accountId: string): Promise<number>;
  abstract close(): Promise<void>;

  async expiresAt(sid: string): Promise<Date | undefined> {
    const loaded = await this.live(sid);
    return loaded ? sessionExpiresAt(loaded.times, this.policy, this.now()) : undefined;
  }

  override get(sid: string, callback: (err: unknown, session?: session.SessionData | null) => void): void {
    this.live(sid).then(
      (loaded) =>
        callback(
          null,
          loaded
            ? ({
                cookie: loaded.cookie,
                accountId: loaded.accountId,
                lastSeenAt: loaded.times.lastSeenAt,
              } as unknown as session.SessionData)
            : null,
        ),
      (err: unknown) => callback(err),
    );
  }

  override set(sid: string, data: session.SessionData, callback?: Callback): void {
    const accountId = data.accountId;
    if (typeof accountId !== 'string' || accountId === '') {
      // Nothing worth keeping: a session exists only for a signed-in account.
      this.destroy(sid, callback);
      return;
    }
    this.done(this.save(sid, accountId, data), callback);
  }

  override touch(sid: string, data: session.SessionData, callback?: () => void): void {
    const now = this.now();
    const lastSeenAt = data?.lastSeenAt;
    if (!isSessionId(sid) || (typeof lastSeenAt === 'number' && now - lastSeenAt < this.touchIntervalMs)) {
      callback?.();
      return;
    }
    this.refresh(sid, now).then(
      () => callback?.(),
      (err: unknown) => {
        this.report(err);
        callback?.();
      },
    );
  }

  override destroy(sid: string, callback?: Callback): void {
    if (!isSessionId(sid)) {
      callback?.();
      return;
    }
    this.done(this.remove(sid), callback);
  }

  override length(callback: (err: unknown, length?: number) => void): void {
    this.count().then(
      (n) => callback(null, n),
      (err: unknown) => callback(err),
    );
  }

  override clear(callback?: Callback): void {
    this.done(this.removeAll(), callback);
  }

  /** Nothing to pick up: every instance reads the same store. */
  watch(): void {}

  /** `work` within the store's timeout; any failure becomes SessionStoreUnavailableError. */
  protected async within<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(work, this.timeoutMs);
    } catch (err) {
      throw err instanceof SessionStoreUnavailableError ? err : new SessionStoreUnavailableError(err);
    }
  }

  protected now(): number {
    return this.policy.clock().getTime();
  }

  protected report(err: unknown): void {
    // An 'error' event without a listener would throw.
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }

  private live(sid: string): Promise<LoadedSession | undefined> {
    return isSessionId(sid) ? this.read(sid) : Promise.resolve(undefined);
  }

  private done(work: Promise<unknown>, callback?: Callback): void {
    work.then(
      () => callback?.(),
      (err: unknown) => (callback ? callback(err) : this.report(err)),
    );
  }
}

/** The times of a stored record. */
export function recordTimes(record: Pick<SessionRecord, 'created_at' | 'last_seen_at'>): SessionTimes {
  return { createdAt: Date.parse(record.created_at), lastSeenAt: Date.parse(record.last_seen_at) };
}
