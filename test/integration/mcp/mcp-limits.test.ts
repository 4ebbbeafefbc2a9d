import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successEnvelope } from '../../../shared/api/envelope';
import { CheckPostcodeResult } from '../../../shared/api/mcp';
import { UsageData } from '../../../shared/api/usage';
import { testBackend } from '../../helpers/shared-backends';
import { bearer, callTool, connectMcp, postMcp, textOf } from '../../helpers/mcp-client';
import { checkPostcode, seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';
import { tempDir } from '../../helpers/temp-dir';
import { json, SessionClient } from '../auth/session-client';

const RATE_LIMITED = /^Rate limit exceeded: wait (\d+) seconds, then call again\.$/;

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const CHECK = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'check_postcode', arguments: { postcode: '4000' } },
});

/** `count` raw POST /mcp of `body`, `flight` at a time: the HTTP status of each, and its JSON body. */
async function postMany(url: string, body: string, headers: Record<string, string>, count: number, flight = 25) {
  const answers: { status: number; body: unknown; retryAfter: string | null }[] = [];
  for (let sent = 0; sent < count; sent += flight) {
    const batch = Array.from({ length: Math.min(flight, count - sent) }, async () => {
      const res = await postMcp(url, body, headers);
      return {
        status: res.status,
        body: res.status === 202 ? null : await res.json(),
        retryAfter: res.headers.get('retry-after'),
      };
    });
    answers.push(...(await Promise.all(batch)));
  }
  return answers;
}

/** What a request over the key's allowance of protocol messages is answered: the transport's own JSON-RPC error. */
function expectProtocolRefusal(answer: { status: number; body: unknown; retryAfter: string | null }) {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Rate limit exceeded' }, id: null });
  expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
}

async function usageToday(server: TestServer, email: string, password: string) {
  const owner = new SessionClient(server.url);
  expect((await owner.login(email, password)).status).toBe(200);
  return successEnvelope(UsageData).parse(await json(await owner.get('/api/v1/usage?days=1'))).data.days[0]!;
}

describe('POST /mcp: one rate limit with the REST API, and usage of its own', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('60 REST checks, then 40 tool calls are answered and the 41st is refused with the seconds to wait', async () => {
    const clinic = await seedAccount(server.runtime);
    for (let i = 0; i < 60; i++) {
      expect((await checkPostcode(server, clinic.apiKey!, { postcode: '4000' })).status).toBe(200);
    }
    const client = await connectMcp(server.url, bearer(clinic.apiKey!));
    try {
      for (let i = 0; i < 40; i++) {
        const result = await callTool(client, 'check_postcode', { postcode: '4000' });
        expect(result.isError, `call ${i + 1}`).toBeFalsy();
      }
      const refused = await callTool(client, 'check_postcode', { postcode: '4000' });
      expect(refused.isError).toBe(true);
      const seconds = Number(RATE_LIMITED.exec(textOf(refused))?.[1]);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      // Every tool counts on the same budget; listing them does not.
      expect(textOf(await callTool(client, 'get_declaration', { agrn: '1195' }))).toMatch(RATE_LIMITED);
      expect((await client.listTools()).tools).toHaveLength(6);
      // And the REST check is over the limit too.
      const rest = await checkPostcode(server, clinic.apiKey!, { postcode: '4000' });
      expect(rest.status).toBe(429);
      expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  });

  it('each tool call is counted in usage as "AI assistant (MCP)": answered, refused, rate-limited; protocol messages are not', async () => {
    const clinic = await seedAccount(server.runtime, { rateLimit: 5 });
    const client = await connectMcp(server.url, bearer(clinic.apiKey!));
    try {
      for (let i = 0; i < 3; i++) await client.listTools();
      expect((await callTool(client, 'check_postcode', { postcode: '4000' })).isError).toBeFalsy();
      expect((await callTool(client, 'find_postcodes', { suburb: 'Spring Hill' })).isError).toBeFalsy();
      expect(textOf(await callTool(client, 'check_postcode', { postcode: '40000' }))).toBe('Invalid postcode format');
      expect((await callTool(client, 'list_declarations')).isError).toBeFalsy();
      expect((await callTool(client, 'get_catchment_status')).isError).toBeFalsy();
      expect(textOf(await callTool(client, 'check_postcode', { postcode: '4000' }))).toMatch(RATE_LIMITED);
      await client.ping();
    } finally {
      await client.close();
    }
    const day = await usageToday(server, clinic.email, clinic.password);
    expect(day.keys).toEqual([
      { key_prefix: 'AI assistant (MCP)', answered: 4, refused: 1, rate_limited: 1, batch_rows: 0 },
    ]);
  });

  it("600 protocol messages a minute at the default limit, counted apart: over them 429, and the key's 100 calls untouched", async () => {
    const clinic = await seedAccount(server.runtime);
    const key = bearer(clinic.apiKey!);
    const listed = await postMany(server.url, LIST, key, 600);
    expect(listed.filter((a) => a.status === 200)).toHaveLength(600);
    const others = [
      LIST,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify([JSON.parse(LIST), JSON.parse(CHECK)]),
      'not json',
    ];
    for (const body of others) expectProtocolRefusal((await postMany(server.url, body, key, 1))[0]!);
    await expect(connectMcp(server.url, key)).rejects.toThrow(/Rate limit exceeded/);

    // The calls' own budget is whole: 100 tool calls answered, the 101st refused in words, the REST check too.
    const calls = await postMany(server.url, CHECK, key, 100);
    for (const call of calls) {
      expect(call.status).toBe(200);
      expect((call.body as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    }
    const [over] = await postMany(server.url, CHECK, key, 1);
    const refused = (over!.body as { result: { isError: boolean; content: { text: string }[] } }).result;
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(RATE_LIMITED);
    expect((await checkPostcode(server, clinic.apiKey!, { postcode: '4000' })).status).toBe(429);
  });

  it('tool calls the SDK refuses before any tool runs, and requests the transport refuses, count as protocol messages', async () => {
    const clinic = await seedAccount(server.runtime, { rateLimit: 10 });
    const key = bearer(clinic.apiKey!);
    const call = (params: object) => JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params });
    // 60 a minute at a limit of 10: an unknown tool, arguments of the wrong type, no name, a transport's 406.
    const refusedFirst = [
      call({ name: 'nope' }),
      call({ name: 'check_postcode', arguments: { postcode: 4000 } }),
      call({}),
    ];
    for (const body of refusedFirst) {
      const answers = await postMany(server.url, body, key, 15);
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    const notAccepted = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json', accept: 'application/json' },
      body: CHECK,
    });
    expect(notAccepted.status).toBe(406);
    await postMany(server.url, LIST, key, 14);
    expectProtocolRefusal((await postMany(server.url, call({ name: 'nope' }), key, 1))[0]!);
    // The key's 10 calls are untouched: none of those ran a tool.
    const calls = await postMany(server.url, CHECK, key, 10);
    expect(calls.every((c) => !(c.body as { result: { isError?: boolean } }).result.isError)).toBe(true);
  });

  it('a cancellation in the same body as its request: every request of the body is answered, at once', async () => {
    const clinic = await seedAccount(server.runtime);
    const body = JSON.stringify([
      JSON.parse(CHECK),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } },
    ]);
    const started = Date.now();
    const [answer] = await postMany(server.url, body, bearer(clinic.apiKey!), 1);
    expect(answer!.status).toBe(200);
    // One answer (the SDK sends a lone answer of a batch as itself, not in a list).
    const results = [answer!.body].flat() as { id: number; result: { isError?: boolean } }[];
    expect(results.map((r) => r.id)).toEqual([2]);
    expect(results[0]!.result.isError).toBeFalsy();
    // It hung until the socket's idle timeout (60 s) before: well under that, whatever the machine's load.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a caller without a valid key is counted against its address before the 401, as at the REST check', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
  });
});

describe.skipIf(testBackend() === 'json')('POST /mcp on two instances sharing PostgreSQL and Redis', () => {
  it('answers one client whichever instance each request reaches, with one exact budget and usage', async () => {
    const dataDir = await tempDir();
    const a = await startTestServer({ dataDir });
    const b = await startTestServer({ dataDir, declarations: false });
    try {
      // Issued on A after B started: B knows the key from the database on its next request.
      const clinic = await seedAccount(a.runtime, { rateLimit: 10 });
      let turn = 0;
      const targets = [a, b].map((s) => new URL(s.url));
      const alternate = (url: string | URL, init?: RequestInit) => {
        const target = new URL(url);
        const to = targets[turn++ % 2]!;
        target.host = to.host;
        return fetch(target, init);
      };
      const client = await connectMcp(a.url, bearer(clinic.apiKey!), alternate);
      try {
        expect((await client.listTools()).tools).toHaveLength(6);
        const answers = await Promise.all(
          Array.from({ length: 14 }, () => callTool(client, 'check_postcode', { postcode: '4000' })),
        );
        expect(answers.filter((r) => !r.isError)).toHaveLength(10);
        for (const refused of answers.filter((r) => r.isError)) expect(textOf(refused)).toMatch(RATE_LIMITED);
        const first = answers.find((r) => !r.isError)!;
        expect(CheckPostcodeResult.parse(first.structuredContent).data.location.postcode).toBe('4000');
      } finally {
        await client.close();
      }
      expect(turn).toBeGreaterThan(14);
      // The protocol's messages are counted once across instances too: 6 × 10 a minute for a key of 10, exactly.
      const flooder = bearer((await seedAccount(a.runtime, { rateLimit: 10 })).apiKey!);
      const flood = await Promise.all(
        Array.from({ length: 70 }, async (_, i) => {
          const res = await postMcp([a, b][i % 2]!.url, LIST, flooder);
          await res.arrayBuffer();
          return res.status;
        }),
      );
      expect(flood.filter((status) => status === 200)).toHaveLength(60);
      expect(flood.filter((status) => status === 429)).toHaveLength(10);
      await Promise.all([a.runtime.usage.flush(), b.runtime.usage.flush()]);
      const day = await usageToday(b, clinic.email, clinic.password);
      expect(day.keys).toEqual([
        { key_prefix: 'AI assistant (MCP)', answered: 10, refused: 0, rate_limited: 4, batch_rows: 0 },
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
