import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';

/**
 * The one way a Redis connection is opened, for the rate limit (RedisSlidingWindow), the login throttle
 * (RedisLoginCounter) and the shared sessions (RedisSessionStore): one connection attempt at start (an unreachable
 * Redis stops the start with a clear error), then reconnection for ever with backoff; commands are never queued while
 * disconnected (`disableOfflineQueue`), so they fail at once, and `withTimeout` (with-timeout.ts) bounds the wait for
 * a reply from a Redis that hangs.
 */
export interface RedisConnectionOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  /** What the connection is for, for the start-up error: "sessions", "login throttling", "rate limiting". */
  purpose: string;
  /** How long one connection attempt may take. Default 1000 ms. */
  connectTimeoutMs?: number;
  /** Connection errors (reported while the client reconnects by itself). Default: ignored. */
  onError?: (err: Error) => void;
}

/** Reconnection backoff: 50 ms doubling to 1 s, with up to 20% jitter, forever. */
function reconnectDelay(retries: number): number {
  const base = Math.min(50 * 2 ** retries, 1000);
  return Math.round(base * (1 + Math.random() * 0.2));
}

/** Where a URL points, without its credentials: for error messages. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'REDIS_URL';
  }
}

/**
 * Connects (one attempt within `connectTimeoutMs`) and returns the client. When the attempt fails: an Error naming
 * the host and the purpose, whose `cause` is the connection's own error.
 */
export async function openRedisClient(options: RedisConnectionOptions): Promise<RedisClientType> {
  let connected = false;
  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    // While Redis is slow, commands waiting for a reply are bounded too: beyond this many, refused at once.
    commandsQueueMaxLength: 1000,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 1000,
      // The first connection is tried once (reported below); later ones are retried for ever.
      reconnectStrategy: (retries, cause) => (connected ? reconnectDelay(retries) : cause),
    },
  }) as RedisClientType;
  // Without a listener an 'error' event would crash the process.
  client.on('error', (err: Error) => options.onError?.(err));
  try {
    await client.connect();
    connected = true;
  } catch (err) {
    client.destroy();
    throw new Error(`could not connect to Redis at ${describeUrl(options.url)} for ${options.purpose}`, { cause: err });
  }
  return client;
}

/** Closes the connection: pending commands are answered first, for at most a second. */
export async function closeRedisClient(client: RedisClientType): Promise<void> {
  if (!client.isOpen) return void client.destroy();
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    client.close().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 1000))),
  ]);
  clearTimeout(timer);
  if (!closed) client.destroy();
}

/** A Lua script and its SHA-1, for EVALSHA. */
export interface LuaScript {
  source: string;
  sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Runs a script by EVALSHA, falling back to EVAL when Redis does not have it cached (first use, a restart, SCRIPT
 * FLUSH): EVAL runs it and caches it for the next EVALSHA.
 */
export async function evalScript(
  client: RedisClientType,
  script: LuaScript,
  keys: readonly string[],
  args: readonly string[],
): Promise<unknown> {
  const rest = [String(keys.length), ...keys, ...args];
  try {
    return await client.sendCommand(['EVALSHA', script.sha, ...rest]);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return await client.sendCommand(['EVAL', script.source, ...rest]);
  }
}
