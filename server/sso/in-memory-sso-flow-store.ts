import type { OwnedSsoFlowStore, SsoFlow } from './sso-flow-store';

export interface InMemorySsoFlowStoreOptions {
  now?: () => number;
  /** At most this many flows and one-time keys each; beyond it the oldest are dropped. Default 10 000. */
  maxEntries?: number;
  /** How often entries past their time are dropped. Default one minute. */
  sweepIntervalMs?: number;
}

interface Held<T> {
  value: T;
  expiresAt: number;
}

/**
 * The flows of a single instance (no PostgreSQL, no Redis): in this process, so a restart forgets the sign-ins under
 * way (they start again). Bounded: anyone may start a sign-in, so the oldest flow is dropped rather than memory
 * growing without end (start is throttled per address as well). The sweep's timer is unref'd (it never keeps the
 * process alive) and stopped by close().
 */
export class InMemorySsoFlowStore implements OwnedSsoFlowStore {
  private readonly flows = new Map<string, Held<SsoFlow>>();
  private readonly used = new Map<string, Held<true>>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: InMemorySsoFlowStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  /** Flows and one-time keys held (those past their time included until the next sweep). */
  get size(): number {
    return this.flows.size + this.used.size;
  }

  async put(id: string, flow: SsoFlow, ttlMs: number): Promise<void> {
    this.hold(this.flows, id, structuredClone(flow), ttlMs);
  }

  async take(id: string): Promise<SsoFlow | undefined> {
    const held = this.flows.get(id);
    this.flows.delete(id);
    return held && held.expiresAt > this.now() ? held.value : undefined;
  }

  async firstUse(key: string, ttlMs: number): Promise<boolean> {
    const held = this.used.get(key);
    if (held && held.expiresAt > this.now()) return false;
    this.hold(this.used, key, true, ttlMs);
    return true;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Entries past their time leave; the oldest leave first when the map is full (a Map keeps insertion order). */
  private hold<T>(map: Map<string, Held<T>>, key: string, value: T, ttlMs: number): void {
    map.delete(key);
    while (map.size >= this.maxEntries) map.delete(map.keys().next().value!);
    map.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  private sweep(): void {
    const now = this.now();
    for (const map of [this.flows, this.used] as Map<string, Held<unknown>>[]) {
      for (const [key, held] of map) if (held.expiresAt <= now) map.delete(key);
    }
  }
}
