import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP SDK's own client over Streamable HTTP to `url`/mcp, sending `headers` (the key) with every request, as an
 * AI assistant configured with a header does. `fetch`: where each request goes (two instances behind one client).
 */
export async function connectMcp(url: string, headers: Record<string, string>, fetch?: FetchLike): Promise<Client> {
  const client = new Client({ name: 'dte-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), {
    requestInit: { headers },
    ...(fetch ? { fetch } : {}),
  });
  await client.connect(transport);
  return client;
}

export const bearer = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

/** A tool's call, its result as the client read it (the SDK's client checks structuredContent against the schema). */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`not a text result: ${JSON.stringify(result)}`);
  return first.text;
}

/** A raw POST /mcp, as a client that is not the SDK's may send one. */
export function postMcp(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
}
