import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One operation of the API as both sides know it: its method and path (OpenAPI's form, `{name}` for a parameter),
 * what it reads (path parameters, query, JSON body) and what a success answers. The server defines its route from it
 * (server/http/route.ts: gates, handler, documentation); the console and the extension call it by the same object
 * (ui/api/endpoint-call.ts), so a path or a schema is written once.
 */
export interface Endpoint {
  readonly method: HttpMethod;
  readonly path: `/${string}`;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  /** A JSON request body of this schema. */
  readonly body?: z.ZodType;
  /** A success answers `{ success: true, data }` with `data` of this schema. */
  readonly data?: z.ZodType;
  /** …or this whole body (an answer with `metadata` beside `data`, or no envelope at all: /healthz). */
  readonly response?: z.ZodType;
  /** The status of a success, when it is not 200 (201 Created, 202 Accepted; a redirect of single sign-on's). */
  readonly status?: 200 | 201 | 202 | 302 | 303;
}

/** An endpoint, its literal types kept (method, path, schemas) for the callers' inference. */
export const endpoint = <const E extends Endpoint>(declared: E): E => declared;

/** `path` with each `{name}` replaced by its value, encoded as one path segment. */
export function endpointPath(path: string, params: Readonly<Record<string, string>> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`No value for the path parameter ${name} of ${path}`);
    return encodeURIComponent(value);
  });
}
