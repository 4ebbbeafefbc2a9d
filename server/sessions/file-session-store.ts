import path from 'node:path';
import session from 'express-session';
import { JsonStore } from '../storage/json-store';
import {
  isSessionExpired,
  recordTimes,
  sessionExpiresAt,
  sessionKey,
  SessionsFile,
  touchIntervalMs,
  type SessionPolicy,
  type SessionRecord,
  type SessionStore,
} from './session-store';
import './session-types';

type Callback = (err?: unknown) => void;

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
