import session from 'express-session';
import { isContractError } from '../contract-error';
import { withTimeout } from '../storage/with-timeout';
import {
  sessionExpiresAt,
  sessionUnavailable,
  touchIntervalMs,
  type SessionPolicy,
  type SessionStore,
  type SessionTimes,
} from './session-store';
import './session-types';

type Callback = (err?: unknown) => void;

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
 * - Every operation runs `within` the store's timeout; any failure is sessionUnavailable() (503
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

  /** `work` within the store's timeout; any failure becomes sessionUnavailable(). */
  protected async within<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(work, this.timeoutMs);
    } catch (err) {
      throw isContractError(err, 'session_unavailable') ? err : sessionUnavailable(err);
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
