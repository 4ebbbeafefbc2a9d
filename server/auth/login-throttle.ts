import { InMemorySlidingWindow } from '../rate-limit/sliding-window';

export interface LoginThrottleLimits {
  /** Failed attempts allowed per email address in `windowMs` (whether or not the account exists). */
  perAccount: number;
  /** Failed attempts allowed per client address in `windowMs`, whatever the emails. */
  perIp: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginThrottleLimits = { perAccount: 5, perIp: 20, windowMs: 15 * 60_000 };

export interface LoginAttempt {
  /** The password was right: the email's failures are forgotten, and this attempt stops counting for the address. */
  succeeded(): void;
  /** The attempt failed: it keeps counting (it already does; this only ends the attempt). */
  failed(): void;
}

export type LoginGate = { ok: true; attempt: LoginAttempt } | { ok: false; retryAfterSeconds: number };

/**
 * Slows password guessing: at most `perAccount` failures per email and `perIp` per client address in a sliding
 * window. An attempt counts as a failure from the moment it starts and is taken back only if it succeeds, so a burst
 * of parallel guesses cannot all slip through before the first one has been checked (scrypt takes ~50 ms).
 * While throttled, even the right password is refused — otherwise the throttle would itself be a password oracle.
 *
 * The per-email count applies to unknown emails too, so the throttle does not reveal which accounts exist.
 * The counting is the check endpoint's exact sliding window (InMemorySlidingWindow), one bucket per email and per
 * address. In-memory: a restart forgets counts (acceptable for a window of minutes); several instances each count alone.
 */
export class LoginThrottle {
  private readonly window: InMemorySlidingWindow;
  private callsSinceSweep = 0;

  constructor(
    readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.window = new InMemorySlidingWindow(limits.windowMs);
  }

  get size(): number {
    return this.window.size;
  }

  begin(email: string, ip: string): LoginGate {
    if (++this.callsSinceSweep >= 1000) this.purge();
    const now = this.now();
    const accountKey = `email:${email}`;
    const ipKey = `ip:${ip}`;
    // Both buckets are decided before either keeps the attempt: a refusal by one takes back what the other recorded
    // (synchronously, so the newest entry is this attempt's), and a refused attempt never counts.
    const account = this.window.consume(accountKey, this.limits.perAccount, now);
    const address = this.window.consume(ipKey, this.limits.perIp, now);
    if (!account.allowed || !address.allowed) {
      if (account.allowed) this.window.undo(accountKey);
      if (address.allowed) this.window.undo(ipKey);
      const waits = [account, address].filter((s) => !s.allowed).map((s) => Math.ceil((s.resetAt - now) / 1000));
      return { ok: false, retryAfterSeconds: Math.max(1, ...waits) };
    }

    let settled = false;
    return {
      ok: true,
      attempt: {
        succeeded: () => {
          if (settled) return;
          settled = true;
          this.window.reset(accountKey);
          // Takes back one entry: the newest, this attempt's or a later parallel one's; the count is the same.
          this.window.undo(ipKey);
        },
        failed: () => {
          settled = true;
        },
      },
    };
  }

  /** Forgets counts that have left the window. */
  purge(): void {
    this.callsSinceSweep = 0;
    this.window.purge(this.now());
  }
}
