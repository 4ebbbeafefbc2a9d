import { hash } from 'node:crypto';
import type { RedisClientType } from 'redis';
import { storageUnavailable } from '../storage/postgres/unavailable';
import { closeRedisClient, openRedisClient } from '../storage/redis-client';
import { withTimeout } from '../storage/with-timeout';
import { parseSsoFlow } from './sso-flow-json';
import type { OwnedSsoFlowStore, SsoFlow } from './sso-flow-store';

export interface RedisSsoFlowStoreOptions {
  url: string;
  /** REDIS_KEY_PREFIX: flows are kept under `${keyPrefix}sso-flow:`, one-time keys under `${keyPrefix}sso-once:`. */
  keyPrefix: string;
  /** Per command, before the sign-in is answered 503 storage_unavailable. Default 500 ms. */
  commandTimeoutMs?: number;
  onError?: (err: Error) => void;
}

/**
 * The flows in Redis, shared by every instance: SET … PX to keep one, GETDEL to take it (atomic: of two callbacks
 * carrying the same state, on any instances, one gets the flow), SET … NX PX for a key's first use. Redis expires
 * them by itself. Unreachable or silent beyond `commandTimeoutMs`: 503 storage_unavailable (nothing was taken).
 */
export class RedisSsoFlowStore implements OwnedSsoFlowStore {
  private constructor(
    private readonly client: RedisClientType,
    private readonly keyPrefix: string,
    private readonly commandTimeoutMs: number,
  ) {}

  static async open(options: RedisSsoFlowStoreOptions): Promise<RedisSsoFlowStore> {
    let client: RedisClientType;
    try {
      client = await openRedisClient({ ...options, purpose: 'single sign-on' });
    } catch (err) {
      throw storageUnavailable(err);
    }
    return new RedisSsoFlowStore(client, options.keyPrefix, options.commandTimeoutMs ?? 500);
  }

  async put(id: string, flow: SsoFlow, ttlMs: number): Promise<void> {
    await this.run(() => this.client.set(this.flowKey(id), JSON.stringify(flow), { PX: Math.max(1, ttlMs) }));
  }

  async take(id: string): Promise<SsoFlow | undefined> {
    const text = await this.run(() => this.client.getDel(this.flowKey(id)));
    return typeof text === 'string' ? parseSsoFlow(text) : undefined;
  }

  async firstUse(key: string, ttlMs: number): Promise<boolean> {
    const reply = await this.run(() =>
      this.client.set(`${this.keyPrefix}sso-once:${hash('sha256', key, 'hex')}`, '1', {
        NX: true,
        PX: Math.max(1, ttlMs),
      }),
    );
    return reply === 'OK';
  }

  close(): Promise<void> {
    return closeRedisClient(this.client);
  }

  /** The flow's id is random and unguessable, but it came in a URL: hashed, so no key is the state itself. */
  private flowKey(id: string): string {
    return `${this.keyPrefix}sso-flow:${hash('sha256', id, 'hex')}`;
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(command, this.commandTimeoutMs);
    } catch (err) {
      throw storageUnavailable(err);
    }
  }
}
