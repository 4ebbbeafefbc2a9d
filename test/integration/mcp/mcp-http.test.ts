import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../../shared/api/envelope';
import { CheckPostcodeResult } from '../../../shared/api/mcp';
import { bearer, callTool, connectMcp, postMcp } from '../../helpers/mcp-client';
import { seedAccount, startTestServer, type TestServer } from '../../helpers/test-server';

const run = promisify(execFile);

const call = (id: number, name: string, args: Record<string, unknown>) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }) as const;

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' } as const;

/** What a refused HTTP request of the transport answers: a JSON-RPC error with no id. */
async function jsonRpcError(res: Response): Promise<{ code: number; message: string }> {
  const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect(body).toMatchObject({ jsonrpc: '2.0', id: null });
  return body.error;
}

describe('POST /mcp over HTTP: keys, methods, origins and malformed requests', () => {
  let server: TestServer;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    apiKey = (await seedAccount(server.runtime, { rateLimit: 1000 })).apiKey!;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('without a key, or with one that is not a key: 401 with the Bearer challenge and the JSON envelope', async () => {
    const missing = await postMcp(server.url, JSON.stringify(LIST));
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
    expect(ErrorEnvelope.parse(await missing.json()).error).toEqual({
      code: 'missing_api_key',
      message: 'Missing API key: send Authorization: Bearer <key>',
    });
    for (const headers of [
      bearer('sk_live_0000000000000000000000000000000000000000'),
      bearer(''),
      { Authorization: `Basic ${Buffer.from(`user:${apiKey}`).toString('base64')}` },
      { 'x-api-key': 'sk_live_nope' },
    ]) {
      const res = await postMcp(server.url, JSON.stringify(LIST), headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer realm="mcp", error="invalid_token", error_description="Invalid API key"',
      );
      expect(ErrorEnvelope.parse(await res.json()).error).toEqual({
        code: 'invalid_api_key',
        message: 'Invalid API key',
      });
    }
    // The SDK's client is told so at connect.
    await expect(connectMcp(server.url, {})).rejects.toThrow(/missing_api_key/);
  });

  it('a key of an inactive subscription: 403 "API subscription is inactive"', async () => {
    const lapsed = await seedAccount(server.runtime, { status: 'inactive' });
    const res = await postMcp(server.url, JSON.stringify(LIST), bearer(lapsed.apiKey!));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(ErrorEnvelope.parse(await res.json()).error).toEqual({
      code: 'subscription_inactive',
      message: 'API subscription is inactive',
    });
  });

  it('the key in Authorization: Bearer or in x-api-key', async () => {
    const ways: Record<string, string>[] = [
      bearer(apiKey),
      { authorization: `bearer  ${apiKey}` },
      { 'x-api-key': apiKey },
      // A proxy's own credential beside the key.
      { authorization: 'Basic cHJveHk6cHJveHk=', 'x-api-key': apiKey },
    ];
    for (const headers of ways) {
      const res = await postMcp(server.url, JSON.stringify(LIST), headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(6);
    }
  });

  it('GET, DELETE and other methods: 405 as a JSON-RPC error, Allow: POST (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
      const res = await fetch(`${server.url}/mcp`, {
        method,
        headers: { ...bearer(apiKey), accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await jsonRpcError(res)).message).toBe('Method not allowed');
    }
  });

  it("a web page's Origin other than the service's own: 403 before the key is looked at", async () => {
    for (const origin of ['http://evil.example', 'null', `${server.url}.evil.example`]) {
      const res = await postMcp(server.url, JSON.stringify(LIST), { ...bearer(apiKey), origin });
      expect(res.status, origin).toBe(403);
      expect((await jsonRpcError(res)).message).toBe('Request origin is not allowed');
      const probe = await fetch(`${server.url}/mcp`, { headers: { origin } });
      expect(probe.status, origin).toBe(403);
    }
    const own = await postMcp(server.url, JSON.stringify(LIST), { ...bearer(apiKey), origin: server.url });
    expect(own.status).toBe(200);
  });

  it("malformed JSON-RPC gets the protocol's error, never a 5xx", async () => {
    const cases: [string, Record<string, string>, number, number][] = [
      ['{"jsonrpc":"2.0","id":1,"method":', {}, 400, -32700],
      ['not json', {}, 400, -32700],
      ['{"hello":"world"}', {}, 400, -32700],
      ['[1,2,3]', {}, 400, -32700],
      ['{"jsonrpc":"1.0","id":1,"method":"tools/list"}', {}, 400, -32700],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":7}', {}, 400, -32700],
      [JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ ...LIST, id: i }))), {}, 400, -32600],
      [JSON.stringify({ ...LIST, pad: 'x'.repeat(70 * 1024) }), {}, 413, -32000],
      [JSON.stringify(LIST), { 'content-type': 'text/plain' }, 415, -32000],
      [JSON.stringify(LIST), { accept: 'application/json' }, 406, -32000],
    ];
    for (const [body, headers, status, code] of cases) {
      const res = await postMcp(server.url, body, { ...bearer(apiKey), ...headers });
      expect(res.status, body.slice(0, 60)).toBe(status);
      expect((await jsonRpcError(res)).code, body.slice(0, 60)).toBe(code);
    }
    const unknownMethod = await postMcp(server.url, JSON.stringify({ ...LIST, method: 'tools/nope' }), bearer(apiKey));
    expect(unknownMethod.status).toBe(200);
    expect(await unknownMethod.json()).toMatchObject({ id: 1, error: { code: -32601 } });
    const unknownTool = await postMcp(server.url, JSON.stringify(call(2, 'drop_tables', {})), bearer(apiKey));
    expect(await unknownTool.json()).toMatchObject({ id: 2, result: { isError: true } });
  });

  it('a batch of JSON-RPC messages is answered as one array, each call on its own', async () => {
    const batch = [LIST, call(2, 'check_postcode', { postcode: '4000' }), call(3, 'check_postcode', { postcode: 'x' })];
    const res = await postMcp(server.url, JSON.stringify(batch), bearer(apiKey));
    expect(res.status).toBe(200);
    const answers = (await res.json()) as { id: number; result: Record<string, unknown> }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    const byId = new Map(answers.map((a) => [a.id, a.result]));
    expect(CheckPostcodeResult.parse(byId.get(2)!.structuredContent).data.location.postcode).toBe('4000');
    expect(byId.get(3)).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Invalid postcode format' }] });
    // Notifications alone: accepted, nothing to answer.
    const note = await postMcp(
      server.url,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      bearer(apiKey),
    );
    expect(note.status).toBe(202);
  });

  it('the MCP inspector CLI lists the tools and calls one, offline against this server', async () => {
    // Run from its own folder: 1.0.3 looks for its package.json at ../package.json from the working directory but
    // imports it relative to its own file, so from the project's root it fails before connecting.
    const cli = resolve('node_modules/.bin/mcp-inspector-cli');
    const cwd = dirname(realpathSync(resolve('node_modules/@modelcontextprotocol/inspector-cli/build/index.js')));
    const common = ['--cli', `${server.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${apiKey}`];
    const list = await run(cli, [...common, '--method', 'tools/list'], { timeout: 20_000, cwd });
    const { tools } = JSON.parse(list.stdout) as { tools: { name: string; annotations: unknown }[] };
    expect(tools.map((t) => t.name)).toContain('check_postcode');
    expect(tools[0]!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    const args = ['--method', 'tools/call', '--tool-name', 'check_postcode', '--tool-arg', 'postcode="4000"'];
    const called = await run(cli, [...common, ...args], { timeout: 20_000, cwd });
    const result = JSON.parse(called.stdout) as { isError?: boolean; structuredContent: unknown };
    expect(result.isError).toBeFalsy();
    expect(CheckPostcodeResult.parse(result.structuredContent).data.summary.is_eligible).toBe(true);
    // And the SDK's own client agrees with it.
    const client = await connectMcp(server.url, bearer(apiKey));
    try {
      expect((await callTool(client, 'check_postcode', { postcode: '4000' })).structuredContent).toEqual(
        result.structuredContent,
      );
    } finally {
      await client.close();
    }
  });
});
