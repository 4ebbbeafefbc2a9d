import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successEnvelope } from '../../../shared/api/envelope';
import { UsageData } from '../../../shared/api/usage';
import { bearer, callTool, connectMcp, textOf } from '../../helpers/mcp-client';
import { useRedisServer } from '../../helpers/redis-per-file';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { waitFor } from '../../helpers/wait-for';
import { json, SessionClient } from '../auth/session-client';

// The file's own redis-server, stopped mid-test: the keys' rate limits (the REST API's and the protocol's) live there.
const redis = useRedisServer();

/**
 * An AI assistant's tool calls while the shared rate limit is out of reach: each fails closed as a result the model
 * can read (the REST API's "Rate limiting is unavailable"), never a data answer uncounted, never a protocol error or a
 * 500; the protocol's own messages (initialize, tools/list) still pass, so the assistant has words to show; nothing
 * is counted as the key's use; and tools answer again once Redis is back.
 */
describe('MCP while Redis is out', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      config: { REDIS_URL: redis.url, SESSION_SECRET: 'a session secret of at least 32 characters!' },
    });
  });
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await server?.close();
  });

  it('tool calls fail closed in words, the protocol still answers, nothing is counted, and it recovers', async () => {
    const clinic = await seedAccount(server.runtime);
    await redis.stop();
    // A client connecting now: initialize and tools/list are let through.
    const client = await connectMcp(server.url, bearer(clinic.apiKey!));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('check_postcode');
      for (const [name, args] of [
        ['check_postcode', { postcode: '4000' }],
        ['list_declarations', {}],
      ] as const) {
        const refused = await callTool(client, name, args);
        expect(refused.isError, name).toBe(true);
        expect(refused.structuredContent, name).toBeUndefined();
        expect(textOf(refused), name).toMatch(/^Rate limiting is unavailable; try again shortly/);
      }
      expect(server.logs.filter((line) => JSON.parse(line).msg === 'unhandled error')).toEqual([]);

      await redis.start();
      await waitFor(async () => !(await callTool(client, 'check_postcode', { postcode: '4000' })).isError, {
        timeoutMs: 10_000,
        intervalMs: 200,
        what: 'tool calls to answer again after Redis restarted',
      });
    } finally {
      await client.close();
    }
    // Only the answered call is the key's use: the refusals were the service's failure, not the caller's.
    const owner = new SessionClient(server.url);
    expect((await owner.login(clinic.email, clinic.password)).status).toBe(200);
    const usage = successEnvelope(UsageData).parse(await json(await owner.get('/api/v1/usage?days=1'))).data;
    expect(usage.days[0]!.keys).toEqual([
      { key_prefix: 'AI assistant (MCP)', answered: 1, refused: 0, rate_limited: 0, batch_rows: 0 },
    ]);
  });
});
