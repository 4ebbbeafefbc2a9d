import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CancelledNotificationSchema, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
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
  /** The transport's own rules for a body: what a request message is, and the most messages a batch may hold. */
  isJSONRPCRequest: typeof isJSONRPCRequest;
  maxBatchSize: number;
  /** notifications/cancelled, which a server of one request answers itself (mcpServerFor). */
  CancelledNotificationSchema: typeof CancelledNotificationSchema;
}

/**
 * The SDK's server, its transport (under Hono's Node adapter), Ajv and the protocol's schemas, loaded by the first
 * request to /mcp: what an instance no assistant calls does not carry (the check's memory target, README
 * "Benchmarks").
 */
export const mcpSdk = loadOnFirstUse(async (): Promise<McpSdk> => {
  const [mcp, http, ajv, types, body] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/requestBody.js'),
  ]);
  return {
    McpServer: mcp.McpServer,
    StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
    schemaValidator: new ajv.AjvJsonSchemaValidator(),
    isJSONRPCRequest: types.isJSONRPCRequest,
    maxBatchSize: body.MAX_BATCH_SIZE,
    CancelledNotificationSchema: types.CancelledNotificationSchema,
  };
});
