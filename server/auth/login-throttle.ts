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
 * In-memory: a restart forgets counts (acceptable for a window of minutes); several instances each count alone.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private callsSinceSweep = 0;

  constructor(
    readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.failures.size;
  }

  begin(email: string, ip: string): LoginGate {
    if (++this.callsSinceSweep >= 1000) this.purge();
    const now = this.now();
    const accountKey = `email:${email}`;
    const ipKey = `ip:${ip}`;
    const account = this.recent(accountKey, now);
    const address = this.recent(ipKey, now);
    const waits: number[] = [];
    if (account.length >= this.limits.perAccount) waits.push(this.waitFor(account, this.limits.perAccount, now));
    if (address.length >= this.limits.perIp) waits.push(this.waitFor(address, this.limits.perIp, now));
    if (waits.length > 0) return { ok: false, retryAfterSeconds: Math.max(1, ...waits) };

    account.push(now);
    address.push(now);
    this.failures.set(accountKey, account);
    this.failures.set(ipKey, address);
    let settled = false;
    return {
      ok: true,
      attempt: {
        succeeded: () => {
          if (settled) return;
          settled = true;
          this.failures.delete(accountKey);
          const times = this.failures.get(ipKey);
          const i = times?.lastIndexOf(now) ?? -1;
          if (times && i >= 0) {
            times.splice(i, 1);
            if (times.length === 0) this.failures.delete(ipKey);
          }
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
    const cutoff = this.now() - this.limits.windowMs;
    for (const [key, times] of this.failures) {
      if ((times.at(-1) ?? -Infinity) <= cutoff) this.failures.delete(key);
    }
  }

  private recent(key: string, now: number): number[] {
    const cutoff = now - this.limits.windowMs;
    return (this.failures.get(key) ?? []).filter((t) => t > cutoff);
  }

  /** Seconds until enough failures leave the window for one more attempt. */
  private waitFor(times: number[], limit: number, now: number): number {
    const freeing = times[times.length - limit]!;
    return Math.ceil((freeing + this.limits.windowMs - now) / 1000);
  }
}
