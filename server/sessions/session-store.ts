import { hash } from 'node:crypto';
import type session from 'express-session';
import { z } from 'zod';
import { ContractError } from '../contract-error';
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
 * What a shared session store (Redis, PostgreSQL) that cannot be reached, or did not answer in time, rejects with: the
 * request is answered 503 `session_unavailable` with Retry-After (the JSON error envelope), never with a crash or a
 * hang, and never as "signed out". The contract's error, so it becomes the envelope wherever it surfaces: in
 * express-session's load (passed to `next`), or in a handler awaiting regenerate, save or destroy.
 */
export function sessionUnavailable(cause?: unknown): ContractError {
  return new ContractError('session_unavailable', { retryAfterSeconds: 2, cause });
}

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
   * sessionUnavailable() when a shared store cannot be reached.
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

/** The times of a stored record. */
export function recordTimes(record: Pick<SessionRecord, 'created_at' | 'last_seen_at'>): SessionTimes {
  return { createdAt: Date.parse(record.created_at), lastSeenAt: Date.parse(record.last_seen_at) };
}
