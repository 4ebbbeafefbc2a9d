import { RedisStore } from 'connect-redis';
import type session from 'express-session';
import type { RedisClientType } from 'redis';
import { closeRedisClient, evalScript, luaScript, openRedisClient } from '../storage/redis-client';
import { isSessionExpired, recordTimes, SessionRecord, sessionKey, type SessionPolicy } from './session-store';
import { SharedSessionStore, type LoadedSession } from './shared-session-store';
import './session-types';

export interface RedisSessionStoreOptions {
  /** A connected client (openRedisClient): commands fail at once while it is disconnected, it reconnects by itself. */
  client: RedisClientType;
  /** REDIS_KEY_PREFIX (default `dte:`): sessions are kept under `${keyPrefix}sess:`. */
  keyPrefix: string;
  policy: SessionPolicy;
  /** How long one Redis command may take before the request is answered 503 `session_unavailable`. Default 500 ms. */
  commandTimeoutMs?: number;
  /** Whether close() closes the client. Default false. */
  ownsClient?: boolean;
}

export interface OpenRedisSessionStoreOptions extends Omit<RedisSessionStoreOptions, 'client' | 'ownsClient'> {
  /** redis:// or rediss:// URL (REDIS_URL). */
  url: string;
  /** How long the one connection attempt at start may take. Default 1000 ms. */
  connectTimeoutMs?: number;
  /** Connection errors, reported while the client reconnects by itself. Default: ignored. */
  onError?: (err: Error) => void;
}

/**
 * Adds a session key to its account's set and makes the set live as long as the longest session in it may:
 * KEYS[1] = the account's set; ARGV = session key hash, ms until that session's absolute deadline.
 */
const INDEX_SCRIPT = luaScript(`
redis.call('SADD', KEYS[1], ARGV[1])
local want = tonumber(ARGV[2])
if redis.call('PTTL', KEYS[1]) < want then
  redis.call('PEXPIRE', KEYS[1], want)
end
return 1
`);

/**
 * express-session's Store in Redis, shared by every instance: a session made on one is read by all. Built on
 * connect-redis's RedisStore (get, set, destroy, length, clear) with the policy of FileSessionStore:
 *
 * - Keys are `${prefix}sess:<SHA-256 of the session id, hex>`: Redis does not hold usable session ids. The value is
 *   FileSessionStore's record: the account id, the sign-in time, the time the idle deadline was last written and
 *   express-session's cookie settings. No email, nothing else about the account.
 * - Expiry is decided on this server's clock: `get` refuses a session idle for `idleTimeoutMs` or signed in
 *   `absoluteTimeoutMs` ago, whatever Redis still holds. The key's TTL (connect-redis's `ttl` function) is the time
 *   left to the nearer of the two deadlines, so it never outlives the absolute one and Redis drops dead sessions by
 *   itself (`purge` has nothing to do).
 * - `touch` rewrites the record (new idle deadline, new TTL) at most once per touch interval, and only if the session
 *   still exists (SET … XX: a touch racing a sign-out never brings the session back). The load tells touch when the
 *   last write was (SessionData.lastSeenAt), so a request within the interval costs no Redis command at all.
 * - `destroyAllFor` reads the account's set `${prefix}sess-account:<account id>` of session key hashes (kept as long
 *   as its longest-lived session may live; `destroy` takes its session out) instead of scanning the keyspace.
 *
 * When Redis cannot be reached, or does not answer within `commandTimeoutMs`, every operation fails with
 * sessionUnavailable() (503 `session_unavailable`) — except a touch, which is only a deadline being moved:
 * its failure is reported as an 'error' event and the response goes out (SharedSessionStore). The client reconnects
 * by itself.
 */
export class RedisSessionStore extends SharedSessionStore {
  readonly backend = 'redis';
  private readonly inner: RedisStore;
  private readonly client: RedisClientType;
  private readonly sessionPrefix: string;
  private readonly accountPrefix: string;
  private readonly ownsClient: boolean;

  constructor(options: RedisSessionStoreOptions) {
    super(options.policy, options.commandTimeoutMs ?? 500);
    this.client = options.client;
    this.sessionPrefix = `${options.keyPrefix}sess:`;
    this.accountPrefix = `${options.keyPrefix}sess-account:`;
    this.ownsClient = options.ownsClient ?? false;
    this.inner = new RedisStore({
      client: this.client,
      prefix: this.sessionPrefix,
      // What is stored is a SessionRecord (see set); anything else under the prefix reads as no session.
      serializer: {
        parse: (text: string) => parseRecord(text) as unknown as session.SessionData,
        stringify: (record: session.SessionData) => JSON.stringify(record),
      },
      // Seconds to the nearer deadline on this server's clock; 0 or less makes connect-redis delete instead.
      ttl: (record: session.SessionData) => Math.ceil(this.msLeft(record as unknown as SessionRecord) / 1000),
    });
  }

  /** Connects to Redis (one attempt; an Error naming the host when it fails) and returns a store owning the client. */
  static async open(options: OpenRedisSessionStoreOptions): Promise<RedisSessionStore> {
    const client = await openRedisClient({ ...options, purpose: 'sessions' });
    return new RedisSessionStore({ ...options, client, ownsClient: true });
  }

  protected async read(sid: string): Promise<LoadedSession | undefined> {
    const record = await this.liveRecord(sid);
    return record
      ? { accountId: record.account_id, cookie: structuredClone(record.cookie), times: recordTimes(record) }
      : undefined;
  }

  protected count(): Promise<number> {
    return this.within(() => this.inner.length() as Promise<number>);
  }

  protected async removeAll(): Promise<void> {
    await this.within(() => this.inner.clear());
    const indexes: string[] = [];
    for await (const keys of this.client.scanIterator({ MATCH: `${this.accountPrefix}*`, COUNT: 100 })) {
      indexes.push(...keys);
    }
    if (indexes.length > 0) await this.within(() => this.client.del(indexes));
  }

  /** Nothing to do: Redis drops each session when its TTL (the nearer deadline) runs out. */
  async purge(): Promise<number> {
    return 0;
  }

  async destroyAllFor(accountId: string): Promise<number> {
    const index = this.accountPrefix + accountId;
    const members = await this.within(() => this.client.sMembers(index));
    if (members.length === 0) return 0;
    const removed = await this.within(() => this.client.del(members.map((m) => this.sessionPrefix + m)));
    // Only these members: a session signed in meanwhile stays listed.
    await this.within(() => this.client.sRem(index, members));
    return removed;
  }

  async close(): Promise<void> {
    if (this.ownsClient) await closeRedisClient(this.client);
  }

  /** The stored record of a session that is live on this server's clock; null when there is none. */
  private async liveRecord(sid: string): Promise<SessionRecord | null> {
    const record = (await this.within(() => this.inner.get(sessionKey(sid)))) as SessionRecord | null;
    return record && !isSessionExpired(recordTimes(record), this.policy, this.now()) ? record : null;
  }

  protected async save(sid: string, accountId: string, data: session.SessionData): Promise<void> {
    const key = sessionKey(sid);
    const now = this.now();
    const nowIso = new Date(now).toISOString();
    // The sign-in time survives a re-save (as in FileSessionStore): saving never extends the absolute deadline.
    const existing = (await this.within(() => this.inner.get(key))) as SessionRecord | null;
    const record: SessionRecord = {
      account_id: accountId,
      created_at: existing && existing.account_id === accountId ? existing.created_at : nowIso,
      last_seen_at: nowIso,
      cookie: JSON.parse(JSON.stringify(data.cookie ?? {})) as Record<string, unknown>,
    };
    const untilAbsolute = Date.parse(record.created_at) + this.policy.absoluteTimeoutMs - now;
    // Listed first, so that destroyAllFor never misses a stored session.
    if (untilAbsolute > 0) {
      await this.within(() =>
        evalScript(this.client, INDEX_SCRIPT, [this.accountPrefix + accountId], [key, String(untilAbsolute)]),
      );
    }
    await this.within(() => this.inner.set(key, record as unknown as session.SessionData));
  }

  /** Deletes a session, and its entry in its account's set (signing out leaves no trace of it). */
  protected async remove(sid: string): Promise<void> {
    const key = sessionKey(sid);
    const record = (await this.within(() => this.inner.get(key))) as SessionRecord | null;
    await this.within(() => this.inner.destroy(key));
    if (record) await this.within(() => this.client.sRem(this.accountPrefix + record.account_id, key));
  }

  protected async refresh(sid: string, now: number): Promise<void> {
    const record = await this.liveRecord(sid);
    if (!record || now - Date.parse(record.last_seen_at) < this.touchIntervalMs) return;
    const updated: SessionRecord = { ...record, last_seen_at: new Date(now).toISOString() };
    const ttlMs = this.msLeft(updated);
    if (ttlMs <= 0) return;
    await this.within(() =>
      this.client.set(this.sessionPrefix + sessionKey(sid), JSON.stringify(updated), {
        condition: 'XX',
        expiration: { type: 'PX', value: ttlMs },
      }),
    );
  }

  /** Ms from now to the nearer of the record's deadlines (idle, absolute), on this server's clock. */
  private msLeft(record: SessionRecord): number {
    const { createdAt, lastSeenAt } = recordTimes(record);
    return Math.min(lastSeenAt + this.policy.idleTimeoutMs, createdAt + this.policy.absoluteTimeoutMs) - this.now();
  }
}

/** A stored record, or null for anything that is not one (never an exception: it reads as no session). */
function parseRecord(text: string): SessionRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = SessionRecord.safeParse(value);
  return parsed.success ? parsed.data : null;
}
