import type { Response } from 'express';
import type { ContractError } from '../contract-error';

/**
 * An HTTP request to /mcp refused before the MCP server sees it, as the transport refuses one (its 406, 413, 415): a
 * JSON-RPC error with no id, the contract's status, message and headers (Retry-After on a 429), so a client's
 * transport reads it as its own.
 */
export function jsonRpcRefusal(res: Response, err: ContractError): void {
  res.set(err.headers);
  res.status(err.status).json({ jsonrpc: '2.0', error: { code: -32000, message: err.message }, id: null });
}
