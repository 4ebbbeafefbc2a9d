import { beforeAll, describe, expect, it } from 'vitest';
import type { CountedCaller } from '../../../server/keys/require-api-key';
import { mcpSdk, type McpSdk } from '../../../server/mcp/mcp-sdk';
import { mcpTools, type McpToolDeps } from '../../../server/mcp/mcp-tools';
import { countProtocolMessages, protocolMessages } from '../../../server/mcp/protocol-limit';
import { WINDOW_MS } from '../../../server/rate-limit/check-rate-limit';
import {
  InMemorySlidingWindow,
  rateLimitUnavailable,
  type SlidingWindowCounter,
} from '../../../server/rate-limit/sliding-window';

const call = (id: number, params: object = { name: 'check_postcode', arguments: { postcode: '4000' } }) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params,
});
const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

/** The service's tools: only their names and input schemas are read here. */
const TOOLS = mcpTools({} as McpToolDeps);

let sdk: McpSdk;
beforeAll(async () => {
  sdk = await mcpSdk();
});
const count = (body: unknown) => protocolMessages(body, sdk, TOOLS);

describe("the protocol's messages of a POST /mcp body", () => {
  it('counts every message but a tool call, each message of a batch', () => {
    expect(count(list(1))).toBe(1);
    expect(count({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(1);
    expect(count(call(1))).toBe(0);
    expect(count([call(1), call(2)])).toBe(0);
    expect(count([list(1), call(2), { jsonrpc: '2.0', id: 3, method: 'ping' }])).toBe(2);
    expect(count(Array.from({ length: 100 }, (_, i) => list(i)))).toBe(100);
  });

  it('counts what is not a tool call as the protocol refuses it: a notification named so, garbage, whole refusals', () => {
    // Without an id it is a notification, which runs no tool.
    expect(count({ jsonrpc: '2.0', method: 'tools/call', params: {} })).toBe(1);
    expect(count({ ...call(1), jsonrpc: '1.0' })).toBe(1);
    expect(count([call(1), 7])).toBe(1);
    // A call the SDK refuses before any tool runs (no such tool, arguments its schema refuses, no name): no call is
    // counted for it, so it counts here, or a key could send them without end.
    expect(count(call(1, { name: 'nope' }))).toBe(1);
    expect(count(call(1, { name: 'check_postcode', arguments: { postcode: 4000 } }))).toBe(1);
    expect(count(call(1, { name: 'check_postcode' }))).toBe(1);
    expect(count(call(1, {}))).toBe(1);
    expect(count([call(1), call(2, { name: 'nope' }), call(3, { name: 'list_declarations' })])).toBe(1);
    for (const refusedWhole of [undefined, 'text', 42, null, [], Array.from({ length: 101 }, (_, i) => call(i))]) {
      expect(count(refusedWhole), JSON.stringify(refusedWhole)?.slice(0, 40)).toBe(1);
    }
  });
});

describe("the key's allowance of protocol messages", () => {
  /** What identifyApiKey leaves for a valid key whose subscription allows `rateLimit` calls a minute. */
  const caller = (rateLimit: number) => ({ id: 'k1', subscription: { rate_limit: rateLimit } }) as CountedCaller;

  it("is six times the key's call limit, in a bucket of its own that leaves the calls' untouched", async () => {
    const window = new InMemorySlidingWindow(WINDOW_MS);
    await countProtocolMessages(window, caller(10), 59, 1000);
    await countProtocolMessages(window, caller(10), 1, 1001);
    await expect(countProtocolMessages(window, caller(10), 1, 1002)).rejects.toMatchObject({
      code: 'rate_limited',
      headers: { 'Retry-After': '60' },
    });
    // The calls' bucket is the check's, still empty.
    expect(window.consume('key:k1', 10, 1003)).toMatchObject({ allowed: true, count: 1 });
    // A minute after the first: the 59 counted then have left the window.
    await countProtocolMessages(window, caller(10), 59, 1000 + WINDOW_MS);
  });

  it('lets the messages through when a shared counter cannot answer (the tool calls still fail closed)', async () => {
    const unreachable: SlidingWindowCounter = {
      consume: () => Promise.reject(rateLimitUnavailable(new Error('ECONNREFUSED'))),
      undo: () => undefined,
      reset: () => undefined,
      purge: () => undefined,
    };
    await expect(countProtocolMessages(unreachable, caller(100), 1, 0)).resolves.toBeUndefined();
    const broken: SlidingWindowCounter = { ...unreachable, consume: () => Promise.reject(new Error('a bug')) };
    await expect(countProtocolMessages(broken, caller(100), 1, 0)).rejects.toThrow('a bug');
  });
});
