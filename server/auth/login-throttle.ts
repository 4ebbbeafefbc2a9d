import { hash } from 'node:crypto';
import { InMemorySlidingWindow, type SlidingWindowCounter, type WindowState } from '../rate-limit/sliding-window';

export interface LoginThrottleLimits {
  /** Failed attempts allowed per email address in `windowMs` (whether or not the account exists). */
  perAccount: number;
  /** Failed attempts allowed per client address in `windowMs`, whatever the emails. */
  perIp: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginThrottleLimits = { perAccount: 5, perIp: 20, windowMs: 15 * 60_000 };

export interface LoginAttempt {
  /**
   * The password was right: the email's failures are forgotten, and this attempt stops counting for the address.
   * Rejects (rateLimitUnavailable()) when a shared counter cannot be reached.
   */
  succeeded(): Promise<void>;
  /** The attempt failed: it keeps counting (it already does; this only ends the attempt). */
  failed(): void;
}

export type LoginGate = { ok: true; attempt: LoginAttempt } | { ok: false; retryAfterSeconds: number };

/** One bucket an attempt is counted in, and its limit. */
export interface LoginBucket {
  key: string;
  limit: number;
}

/**
 * Where login attempts are counted: a SlidingWindowCounter (the window is the counter's), optionally able to count
 * one attempt in several buckets at once, all or nothing. A shared counter must offer `consumeAll` (RedisLoginCounter
 * does it in one Lua script): with consume-then-undo, two instances could each see the other's provisional entry
 * and both refuse, or one's undo could take back the other's entry.
 */
export interface LoginCounter extends SlidingWindowCounter {
  /**
   * Records the attempt in every bucket if each has room, else in none; one state per bucket, in order (`allowed`:
   * whether that bucket alone had room). Rejects with rateLimitUnavailable() when a shared counter is unreachable.
   */
  consumeAll?(buckets: readonly LoginBucket[], now: number): Promise<WindowState[]>;
  close?(): Promise<void>;
}

/**
 * A bucket name that does not carry the email or address itself (the keys of a shared counter are visible). `scope`
 * keeps another throttle's counts apart on the same counter (sign-in has none, for the names it always had).
 */
function bucket(scope: string, kind: 'email' | 'ip', value: string): string {
  return `${scope}${kind}:${hash('sha256', value, 'hex')}`;
}

/**
 * Slows password guessing: at most `perAccount` failures per email and `perIp` per client address in a sliding
 * window. An attempt counts as a failure from the moment it starts and is taken back only if it succeeds, so a burst
 * of parallel guesses cannot all slip through before the first one has been checked (scrypt takes ~50 ms).
 * While throttled, even the right password is refused — otherwise the throttle would itself be a password oracle.
 *
 * The per-email count applies to unknown emails too, so the throttle does not reveal which accounts exist.
 * The counting is the check endpoint's exact sliding window, one bucket per email and per address (named by their
 * SHA-256). By default in this process (InMemorySlidingWindow: a restart forgets counts, several instances each count
 * alone); with REDIS_URL in Redis (openLoginThrottle), shared by every instance.
 */
export class LoginThrottle {
  private readonly counter: LoginCounter;
  private ownsCounter = true;
  private callsSinceSweep = 0;

  constructor(
    readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
    counter?: LoginCounter,
    private readonly scope = '',
  ) {
    this.counter = counter ?? new InMemorySlidingWindow(limits.windowMs);
  }

  /**
   * A throttle with the same limits on the same counter (in this process or Redis, shared by every instance), whose
   * buckets are apart from these: password-reset requests are limited like sign-ins without using up anyone's
   * sign-in attempts. Closing it closes nothing; this throttle owns the counter.
   */
  scoped(scope: string): LoginThrottle {
    const scoped = new LoginThrottle(this.limits, this.now, this.counter, `${this.scope}${scope}:`);
    scoped.ownsCounter = false;
    return scoped;
  }

  /** Buckets held by an in-process counter (idle ones included until the next purge); 0 for a shared one. */
  get size(): number {
    return this.counter instanceof InMemorySlidingWindow ? this.counter.size : 0;
  }

  /**
   * Counts the attempt of `email` from `ip`, or refuses it. Rejects with rateLimitUnavailable() when a shared
   * counter cannot be reached: the caller refuses the sign-in (503), never lets it through uncounted.
   */
  async begin(email: string, ip: string): Promise<LoginGate> {
    if (++this.callsSinceSweep >= 1000) this.purge();
    const now = this.now();
    const accountKey = bucket(this.scope, 'email', email);
    const ipKey = bucket(this.scope, 'ip', ip);
    const buckets: LoginBucket[] = [
      { key: accountKey, limit: this.limits.perAccount },
      { key: ipKey, limit: this.limits.perIp },
    ];
    const states = this.counter.consumeAll
      ? await this.counter.consumeAll(buckets, now)
      : await this.consumeEach(buckets, now);
    if (states.some((s) => !s.allowed)) {
      const waits = states.filter((s) => !s.allowed).map((s) => Math.ceil((s.resetAt - now) / 1000));
      return { ok: false, retryAfterSeconds: Math.max(1, ...waits) };
    }

    let settled = false;
    return {
      ok: true,
      attempt: {
        succeeded: async () => {
          if (settled) return;
          settled = true;
          await this.counter.reset(accountKey);
          // Takes back one entry: the newest, this attempt's or a later parallel one's; the count is the same.
          await this.counter.undo(ipKey);
        },
        failed: () => {
          settled = true;
        },
      },
    };
  }

  /** Forgets counts that have left the window (a shared counter's expire by themselves). */
  purge(): void {
    this.callsSinceSweep = 0;
    Promise.resolve(this.counter.purge(this.now())).catch(() => undefined);
  }

  /** Closes a shared counter's connection. */
  async close(): Promise<void> {
    if (this.ownsCounter) await this.counter.close?.();
  }

  /**
   * Every bucket decided before any keeps the attempt: a refusal by one takes back what the others recorded. With
   * the in-process counter all of it runs synchronously, so the newest entry taken back is this attempt's and no
   * parallel attempt sees it; a refused attempt never counts.
   */
  private async consumeEach(buckets: readonly LoginBucket[], now: number): Promise<WindowState[]> {
    const pending = buckets.map((b) => this.counter.consume(b.key, b.limit, now));
    const states = pending.some((p) => p instanceof Promise) ? await Promise.all(pending) : (pending as WindowState[]);
    if (states.some((s) => !s.allowed)) {
      await Promise.all(buckets.map((b, i) => (states[i]!.allowed ? this.counter.undo(b.key) : undefined)));
    }
    return states;
  }
}
