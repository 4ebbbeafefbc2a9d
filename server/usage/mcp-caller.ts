/**
 * The id under which a key's MCP tool calls (POST /mcp) are counted in usage, beside the key's own REST requests: the
 * key's id after this prefix. They share the key's rate limit; usage tells them apart.
 */
export const MCP_PREFIX = 'mcp:';
/** How usage names them, whichever key the assistant was given. */
export const MCP_LABEL = 'AI assistant (MCP)';

export const mcpUsageId = (keyId: string): string => `${MCP_PREFIX}${keyId}`;
