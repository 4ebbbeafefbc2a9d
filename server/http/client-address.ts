import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

/** The client's address for rate limits, login throttling and the audit log: `req.ip` (TRUST_PROXY-aware), IPv6 grouped by /56. */
export function clientAddress(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}
