import { MCP_PATH } from '../../shared/api/mcp';
import { loadPosts, type LoadResult } from '../lib/load-check';

/** The row the MCP figures are reported under, beside the REST check's. */
export const MCP_TARGET = 'check_postcode over MCP';
/** Connection counts the MCP check is measured at (an assistant's calls come one or a few at a time). */
export const MCP_CONNECTIONS = [1, 10];

/**
 * `check_postcode` over MCP as an AI assistant's client sends it to the stateless server: one JSON-RPC tools/call per
 * POST /mcp, the key as a bearer token, cycling through `postcodes` as the REST check's load does. Each request builds
 * its server and transport, so this measures what the protocol costs over the same cached answer.
 */
export function loadMcpCheck(options: {
  url: string;
  apiKey: string;
  postcodes: readonly string[];
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const { postcodes, apiKey, ...rest } = options;
  const bodies = postcodes.map((postcode, id) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'check_postcode', arguments: { postcode } },
    }),
  );
  const headers = { accept: 'application/json, text/event-stream', authorization: `Bearer ${apiKey}` };
  return loadPosts({ ...rest, apiKey, path: MCP_PATH, bodies, headers });
}

/** The MCP check beside the REST check, measured in the same run: throughput ratio and both p99s. */
export function mcpComparison(rest: LoadResult, mcp: LoadResult, connections: number): string {
  return `  c=${String(connections).padStart(3)}  MCP check_postcode ÷ REST check ${(mcp.rps / rest.rps).toFixed(2)}   p99 ${mcp.p99} ms vs ${rest.p99} ms`;
}
