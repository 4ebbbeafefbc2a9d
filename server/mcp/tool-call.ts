import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isContractError } from '../contract-error';
import type { CountedCaller, UsageCounter } from '../keys/require-api-key';
import type { Logger } from '../logger';
import { countRequest } from '../rate-limit/count-request';
import type { SlidingWindowCounter } from '../rate-limit/sliding-window';
import { mcpUsageId } from '../usage/mcp-caller';

/** What counts a tool call: the check's rate-limit counter, the usage, the process's clock. */
export interface ToolCallDeps {
  rateLimitCounter: SlidingWindowCounter;
  usage: UsageCounter | null;
  clock: () => Date;
  logger: Pick<Logger, 'error'>;
}

/** A tool's answer: its structured result, and the few lines a model can quote from it. */
export interface ToolAnswer<T> {
  structured: T;
  text: string;
}

/** A refusal as the tool result a model reads: the REST API's message, and how long to wait when that is the cure. */
function refusal(message: string, retryAfter: string | undefined): CallToolResult {
  const text = retryAfter === undefined ? message : `${message}: wait ${retryAfter} seconds, then call again.`;
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * One tool call of `caller`, as the REST API takes one request: counted on the key's rate limit first (a refusal is
 * the check's 429, in words), then answered by `answer`; a ContractError it throws is the REST API's refusal, given
 * back as a tool result with `isError` (never a protocol error: the model reads it and can correct its call). Usage
 * counts the call as answered, refused or rate-limited under the key's MCP caller; a failure of the service (a 5xx:
 * no data yet, the shared counter unreachable) is not the caller's use and is not counted, as for the REST API.
 */
export async function answerToolCall<T>(
  deps: ToolCallDeps,
  caller: CountedCaller,
  answer: (now: Date) => ToolAnswer<T> | Promise<ToolAnswer<T>>,
): Promise<CallToolResult> {
  const now = deps.clock();
  const count = (kind: 'answered' | 'refused' | 'rate_limited') =>
    deps.usage?.count(caller.subscription.id, mcpUsageId(caller.id), kind, now);
  try {
    await countRequest(deps.rateLimitCounter, caller, now.getTime());
    const { structured, text } = await answer(now);
    count('answered');
    return { structuredContent: structured as Record<string, unknown>, content: [{ type: 'text', text }] };
  } catch (err) {
    if (!isContractError(err)) {
      deps.logger.error({ err }, 'an MCP tool call failed');
      return refusal('Internal server error', undefined);
    }
    if (err.status === 429) count('rate_limited');
    else if (err.status < 500) count('refused');
    return refusal(err.message, err.headers['Retry-After']);
  }
}
