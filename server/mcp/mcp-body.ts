import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import { ContractError } from '../contract-error';

/** The largest JSON-RPC body read: a tool call is a few hundred bytes; a batch of them stays far below this. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

/**
 * A request whose body was read before the transport: the SDK's transport runs under Hono's Node adapter
 * (@hono/node-server), which takes a request's `rawBody`, when it is a Buffer, as the body instead of the stream.
 */
type ReadAhead = IncomingMessage & { rawBody?: Buffer };

/** Decodes as the transport decodes a body it reads itself: UTF-8, a byte-order mark dropped. */
const UTF8 = new TextDecoder();

/**
 * Reads the body of a POST /mcp ahead of the transport, so that what it holds can be counted before it is answered,
 * and hands the same bytes on to the transport (`rawBody`), which then judges them as it judges a body it reads itself
 * (its 413, -32700, -32600) when it is not JSON. Resolves with the JSON value (the transport's parsedBody: it is
 * not parsed twice), or undefined when the body is not JSON or over
 * MAX_MCP_BODY_BYTES: one byte over is read, enough for the transport's 413, and the rest is left unread with the
 * connection closed after the answer (a body left half read would stall the next request on a kept-alive connection).
 */
export async function readMcpBody(req: ReadAhead, res: Response): Promise<unknown> {
  // Declared over the bound: the transport refuses it from the header, unread, as before.
  if (Number(req.headers['content-length']) > MAX_MCP_BODY_BYTES) return undefined;
  const bytes = await readUpTo(req, MAX_MCP_BODY_BYTES);
  req.rawBody = bytes;
  if (bytes.length > MAX_MCP_BODY_BYTES) {
    res.setHeader('Connection', 'close');
    return undefined;
  }
  try {
    return JSON.parse(UTF8.decode(bytes));
  } catch {
    return undefined;
  }
}

/** The body's bytes, up to one chunk past `maxBytes`; a client that hangs up meanwhile gets invalid_body. */
function readUpTo(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (done: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      done();
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= maxBytes) return;
      req.pause();
      settle(() => resolve(Buffer.concat(chunks)));
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks)));
    const onError = (err: Error) => settle(() => reject(new ContractError('invalid_body', { cause: err })));
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
