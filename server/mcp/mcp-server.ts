import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { CountedCaller } from '../keys/require-api-key';
import type { McpSdk } from './mcp-sdk';
import type { McpTool } from './mcp-tools';
import { answerToolCall, type ToolCallDeps } from './tool-call';

/** How the server names itself to a client (initialize). */
const SERVER_INFO = { name: 'disaster-telehealth-eligibility', title: 'Disaster telehealth eligibility', version: '1' };

/** Read by a client at initialize, and often handed to the model: what the tools are for, in a sentence or two. */
const INSTRUCTIONS =
  "Australian natural disaster declarations (DRFA activations) by postcode, suburb and council area (LGA), for the Medicare telehealth exemption from the 'established clinical relationship' rule. Answers are reference information, not clinical or billing advice; quote the data's date with them.";

/** Every tool only reads, and only this service's own data: nothing a call does changes anything or reaches out. */
const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * The MCP server for one HTTP request of one caller (the SDK's stateless pattern: a server and a transport per
 * request, so that any instance answers any request and nothing is held between them). Each tool call is counted and
 * answered by answerToolCall for `caller`, the key the request carried.
 */
export function mcpServerFor(
  sdk: McpSdk,
  tools: readonly McpTool[],
  calls: ToolCallDeps,
  caller: CountedCaller,
): McpServer {
  const server = new sdk.McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: sdk.schemaValidator,
  });
  // A cancellation can only name a request of the same body here (nothing outlives a request), and the SDK's own
  // handling drops that request's answer, which leaves the transport waiting for it in JSON mode — the connection
  // hung until the socket timed out, its tool call counted as answered. Every request of the body is answered.
  server.server.setNotificationHandler(sdk.CancelledNotificationSchema, () => undefined);
  const organisation = { subscriptionId: caller.subscription.id };
  for (const tool of tools) {
    const { title, description, inputSchema, outputSchema } = tool;
    server.registerTool(
      tool.name,
      { title, description, inputSchema, outputSchema, annotations: { title, ...READ_ONLY } },
      (args) => answerToolCall(calls, caller, (now) => tool.answer(args, now, organisation)),
    );
  }
  return server;
}
