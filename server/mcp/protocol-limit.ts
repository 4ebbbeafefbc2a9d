import type { Request, RequestHandler } from 'express';
import { isContractError } from '../contract-error';
import type { CountedCaller } from '../keys/require-api-key';
import { keyBucket, limitFor } from '../rate-limit/check-rate-limit';
import { countRequest, type Allowance } from '../rate-limit/count-request';
import type { SlidingWindowCounter } from '../rate-limit/sliding-window';
import { jsonRpcRefusal } from './json-rpc-refusal';
import { readMcpBody } from './mcp-body';
import { mcpSdk, type McpSdk } from './mcp-sdk';
import type { McpTool } from './mcp-tools';

/**
 * The protocol's own messages (initialize, tools/list, ping, notifications …) a key may send per tool call it may
 * make: 600 a minute at the default 100 calls. A client sends initialize, notifications/initialized and tools/list
 * when it connects, and some reconnect for every call (CLIs, bridges after an error) or ping to keep a connection
 * alive: about three per call at worst, so six leaves that client twice its need, while a key flooding them is held
 * to ten a second. Tied to the subscription's limit so that a larger contract's clients get room in proportion.
 */
export const PROTOCOL_MESSAGES_PER_CALL = 6;

/** The key's bucket for the protocol's messages: beside its calls' on the same counter, never spending them. */
export function protocolAllowance(caller: CountedCaller): Allowance {
  return { bucket: `mcp-protocol:${keyBucket(caller)}`, limit: PROTOCOL_MESSAGES_PER_CALL * limitFor(caller) };
}

/**
 * Whether a tools/call's params reach a tool, as the SDK decides it before the tool runs: a tool of that name, and
 * arguments its input schema takes (the SDK parses `arguments ?? {}`). Only then is the call counted on the key's
 * calls (tool-call.ts); one the SDK refuses first must count here, or refused calls would cost nothing at all.
 */
function reachesATool(params: unknown, tools: readonly McpTool[]): boolean {
  if (typeof params !== 'object' || params === null) return false;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  const tool = tools.find((t) => t.name === name);
  return tool !== undefined && tool.inputSchema.safeParse(args ?? {}).success;
}

/**
 * How many of a body's messages count as the protocol's: each but a tool call that reaches its tool (counted on the
 * key's calls when it runs). A body the transport refuses whole before any message is handled (not JSON, over 64 kB,
 * a batch of more than 100, an empty batch) counts as one.
 */
export function protocolMessages(
  body: unknown,
  sdk: Pick<McpSdk, 'isJSONRPCRequest' | 'maxBatchSize'>,
  tools: readonly McpTool[],
): number {
  const isToolCall = (message: unknown) =>
    sdk.isJSONRPCRequest(message) && message.method === 'tools/call' && reachesATool(message.params, tools);
  if (!Array.isArray(body) || body.length === 0 || body.length > sdk.maxBatchSize) return isToolCall(body) ? 0 : 1;
  return body.filter((message) => !isToolCall(message)).length;
}

/**
 * Whether the transport will refuse the request before reading a message (406: Accept without application/json and
 * text/event-stream; 415: not JSON): no tool runs, so even a body of tool calls counts as one protocol message.
 */
function refusedByTransport(req: Request): boolean {
  const accept = req.headers.accept ?? '';
  const type = req.headers['content-type'] ?? '';
  return (
    !accept.includes('application/json') || !accept.includes('text/event-stream') || !type.includes('application/json')
  );
}

/**
 * Counts `count` protocol messages of `caller` at `now` on its protocol allowance, one after another: a rate_limited
 * refusal for the first over it (those before it stay counted: batches are gone from the protocol since 2025-06-18,
 * clients send one message a request). A shared counter out of reach lets them through rather than answer a 5xx:
 * they read nothing of the data, and the tool calls that follow still fail closed, as a result the model can read
 * ("Rate limiting is unavailable"), where a refused initialize would leave the client without a word to show.
 */
export async function countProtocolMessages(
  counter: SlidingWindowCounter,
  caller: CountedCaller,
  count: number,
  now: number,
): Promise<void> {
  const allowance = protocolAllowance(caller);
  try {
    for (let left = count; left > 0; left--) await countRequest(counter, caller, now, allowance);
  } catch (err) {
    if (!isContractError(err, 'rate_limit_unavailable')) throw err;
  }
}

/**
 * Counts the request's protocol messages before the transport answers it (the tool calls it holds are counted as
 * each runs). Over the allowance: HTTP 429 with Retry-After and the JSON-RPC error the transport gives, nothing of
 * the request handled.
 */
export function limitProtocolMessages(
  counter: SlidingWindowCounter,
  clock: () => Date,
  tools: readonly McpTool[],
): RequestHandler {
  return (req, res, next) => {
    const caller: CountedCaller = res.locals.caller!;
    Promise.all([readMcpBody(req, res), mcpSdk()])
      .then(([body, sdk]) => {
        res.locals.mcpBody = body;
        const messages = protocolMessages(body, sdk, tools);
        const count = refusedByTransport(req) ? Math.max(1, messages) : messages;
        return countProtocolMessages(counter, caller, count, clock().getTime());
      })
      .then(
        () => next(),
        (err: unknown) => (isContractError(err) ? jsonRpcRefusal(res, err) : next(err)),
      );
  };
}
