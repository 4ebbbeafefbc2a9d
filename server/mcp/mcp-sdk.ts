import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { loadOnFirstUse } from '../load-on-first-use';

/** What a request to /mcp needs of the SDK beyond the protocol's types. */
export interface McpSdk {
  McpServer: typeof McpServer;
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  /**
   * One JSON Schema validator for every request's server. The SDK would build one per server (an Ajv instance: most
   * of a tool call's CPU time when a server lives for one request); it holds nothing of a request.
   */
  schemaValidator: AjvJsonSchemaValidator;
}

/**
 * The SDK's server, its transport (under Hono's Node adapter) and Ajv, loaded by the first request to /mcp: what an
 * instance no assistant calls does not carry (the check's memory target, README "Benchmarks").
 */
export const mcpSdk = loadOnFirstUse(async (): Promise<McpSdk> => {
  const [mcp, http, ajv] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
  ]);
  return {
    McpServer: mcp.McpServer,
    StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
    schemaValidator: new ajv.AjvJsonSchemaValidator(),
  };
});
