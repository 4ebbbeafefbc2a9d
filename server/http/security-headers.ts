import type { RequestHandler, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's headers, worked out once. helmet runs a chain of a dozen middlewares per request to set headers that
 * never change for given options; on the hot path that chain cost as much as the check itself. Running it once
 * against a recording response and replaying the result gives the very same headers.
 */
export function securityHeaders(options?: HelmetOptions): RequestHandler {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name, String(value));
      return recorder;
    },
    removeHeader(name: string) {
      headers.delete(name);
    },
  };
  let finished = false;
  helmet(options)({} as never, recorder as unknown as Response, () => (finished = true));
  if (!finished) throw new Error('helmet did not finish synchronously; its headers cannot be precomputed');
  return (_req, res, next) => {
    res.setHeaders(headers);
    next();
  };
}
