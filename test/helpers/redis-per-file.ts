import { createClient, type RedisClientType } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisServer, type TestRedisServer } from './redis-server';

/** The redis-server of one test file (useRedisServer), with a client for looking at what the code under test wrote. */
export interface FileRedis extends TestRedisServer {
  /** Connected in beforeAll (after the server started); errors while the server is down are ignored. */
  readonly inspect: RedisClientType;
}

/**
 * One throwaway redis-server (startRedisServer) for the calling test file or describe block: started in beforeAll with
 * its `inspect` client, both closed in afterAll. Call it at the top of the file or of the describe block. (Kept apart
 * from redis-server.ts, which the benchmarks and the shared-backend global setup import without vitest.)
 */
export function useRedisServer(): FileRedis {
  let server: TestRedisServer | undefined;
  let inspect: RedisClientType | undefined;
  const started = () => {
    if (!server) throw new Error('the Redis server is started in beforeAll: use it in a hook or a test');
    return server;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    inspect = createClient({ url: server.url }) as RedisClientType;
    inspect.on('error', () => undefined);
    await inspect.connect();
  });
  afterAll(async () => {
    inspect?.destroy();
    await server?.close();
  });

  return {
    get port() {
      return started().port;
    },
    get url() {
      return started().url;
    },
    get inspect() {
      started();
      return inspect!;
    },
    stop: () => started().stop(),
    start: () => started().start(),
    pause: () => started().pause(),
    resume: () => started().resume(),
    close: () => started().close(),
  };
}
