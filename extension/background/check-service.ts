import { isAustralianPostcode } from '../../shared/api/postcode';
import { sydneyToday } from '../../shared/domain/dates';
import type { CheckFailure, CheckOutcome, Problem } from '../../ui/result/outcome';
import { requestCheck } from './check-request';
import type { Fetch } from '../../ui/api/server-request';

export interface CheckServiceDeps {
  fetch: Fetch;
  now?: () => number;
  /**
   * The server URL and key in use, the organisation's or the person's (read on every uncached check, so a change
   * applies at once).
   */
  config(): Promise<{ serverUrl: string; apiKey: string }>;
  /** Whether the browser lets the extension reach this server URL. */
  hasPermission(serverUrl: string): Promise<boolean>;
  /** How long an answer is reused for the same postcode. */
  ttlMs?: number;
  maxEntries?: number;
  /** Requests sent at the same time at most; a page with many postcode fields queues the rest. */
  maxConcurrent?: number;
}

/** Answers that are about the postcode itself and so worth reusing; anything about the key or server is not. */
const CACHEABLE_PROBLEMS: ReadonlySet<Problem> = new Set(['postcode_not_found', 'invalid_postcode']);

export const DEFAULT_TTL_MS = 5 * 60_000;
/**
 * How long a failure about the key or the server is given to every tab without asking again: a page of many postcodes
 * (or many tabs) meeting a stopped server or a revoked key asks once, not once per postcode. A new key or server
 * (`clear`) ends it at once.
 */
export const FAILURE_TTL_MS = 10_000;

/**
 * The background's check, shared by every tab: one answer per postcode and Sydney day (the day the server judges
 * declarations on: an answer from before midnight is not today's) reused for a short time, one request in flight per
 * postcode however many fields ask, a failure about the key or server reused briefly, and a server that said "wait"
 * (429 or 503 with Retry-After) is not asked again until then. Every failure comes back as a CheckOutcome, never as a
 * thrown error.
 */
export class CheckService {
  private readonly cache = new Map<string, { outcome: CheckOutcome; expires: number }>();
  private readonly inFlight = new Map<string, Promise<CheckOutcome>>();
  /** Per server+key: until when the server asked us to wait, and why. */
  private readonly blocked = new Map<string, { until: number; problem: Problem; status?: number }>();
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly maxConcurrent: number;
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly deps: CheckServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.ttlMs = deps.ttlMs ?? DEFAULT_TTL_MS;
    this.maxEntries = deps.maxEntries ?? 500;
    this.maxConcurrent = deps.maxConcurrent ?? 4;
  }

  /** Forgets every cached answer and wait (the key or server changed). */
  clear(): void {
    this.cache.clear();
    this.blocked.clear();
  }

  async check(postcode: string): Promise<CheckOutcome> {
    if (!isAustralianPostcode(postcode)) return { ok: false, postcode, problem: 'invalid_postcode' };
    const { serverUrl, apiKey } = await this.deps.config();
    if (!serverUrl) return { ok: false, postcode, problem: 'not_configured' };
    if (!apiKey) return { ok: false, postcode, problem: 'no_key' };

    const account = `${serverUrl}\n${apiKey}`;
    const now = this.now();
    const key = `${account}\n${postcode}\n${sydneyToday(new Date(now))}`;
    const cached = this.cache.get(key);
    if (cached && cached.expires > now) return cached.outcome;
    if (cached) this.cache.delete(key);

    const waiting = this.waitFailure(account, postcode);
    if (waiting) return waiting;

    const pending = this.inFlight.get(key);
    if (pending) return pending;

    const request = this.send(serverUrl, apiKey, postcode, account, key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, request);
    return request;
  }

  private async send(
    serverUrl: string,
    apiKey: string,
    postcode: string,
    account: string,
    key: string,
  ): Promise<CheckOutcome> {
    let permitted: boolean;
    try {
      permitted = await this.deps.hasPermission(serverUrl);
    } catch {
      permitted = false;
    }
    if (!permitted) return { ok: false, postcode, problem: 'no_permission' };

    await this.slot();
    let outcome: CheckOutcome;
    try {
      // A wait the server asked for while this request was queued applies to it too.
      const waiting = this.waitFailure(account, postcode);
      if (waiting) return waiting;
      outcome = await requestCheck(this.deps.fetch, serverUrl, apiKey, postcode, this.now);
    } catch {
      outcome = { ok: false, postcode, problem: 'server_error' };
    } finally {
      this.release();
    }
    if (outcome.ok || CACHEABLE_PROBLEMS.has(outcome.problem)) {
      this.remember(key, outcome, this.ttlMs);
    } else if (outcome.retryAt !== undefined) {
      this.blocked.set(account, { until: outcome.retryAt, problem: outcome.problem, status: outcome.status });
    } else {
      this.remember(key, outcome, FAILURE_TTL_MS);
    }
    return outcome;
  }

  /** The answer while the server's "wait" for this server+key lasts; null (and the wait forgotten) once it is over. */
  private waitFailure(account: string, postcode: string): CheckFailure | null {
    const wait = this.blocked.get(account);
    if (!wait) return null;
    if (wait.until > this.now()) {
      return { ok: false, postcode, problem: wait.problem, retryAt: wait.until, status: wait.status };
    }
    this.blocked.delete(account);
    return null;
  }

  private slot(): Promise<void> {
    if (this.running < this.maxConcurrent) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** Hands the slot straight to the next queued request, or frees it. */
  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running--;
  }

  private remember(key: string, outcome: CheckOutcome, ttlMs: number): void {
    this.cache.delete(key);
    this.cache.set(key, { outcome, expires: this.now() + ttlMs });
    while (this.cache.size > this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }
}
