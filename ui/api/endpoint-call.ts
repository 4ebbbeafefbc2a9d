import type { z } from 'zod';
import { endpointPath, type Endpoint } from '../../shared/api/endpoint';
import { ErrorEnvelope, successEnvelope } from '../../shared/api/envelope';
import type { AccountResult } from './account-result';
import { GATEWAY_STATUSES, isRedirect, sendRequest, type Fetch } from './server-request';

const UNREACHABLE = {
  ok: false,
  code: 'unreachable',
  message: 'Server unreachable: check the Server URL and the network.',
} as const;

/** What a success of `E` gives the caller: its envelope's `data`, or its whole body. */
export type EndpointData<E extends Endpoint> = E extends { data: infer S extends z.ZodType }
  ? z.infer<S>
  : E extends { response: infer S extends z.ZodType }
    ? z.infer<S>
    : unknown;

/** What a call of `E` sends: its path parameters, its query, its JSON body (typed by the endpoint's schema). */
export interface EndpointRequest<E extends Endpoint> {
  params?: E extends { params: infer S extends z.ZodType } ? z.input<S> : never;
  query?: Readonly<Record<string, string | number>>;
  body?: E extends { body: infer S extends z.ZodType } ? z.input<S> : never;
}

/** How a successful answer's body becomes the result's data; null: not the expected answer. */
export type ReadSuccess<T> = (body: unknown) => T | null;

/** The method as `fetch` is given it: upper case, which `fetch` does not make of `patch` itself. */
export const methodOf = (endpoint: Endpoint) => endpoint.method.toUpperCase() as Uppercase<Endpoint['method']>;

/** The address of a call of `endpoint` on the server at `serverUrl` (empty: this page's own origin). */
export function endpointUrl<E extends Endpoint>(
  serverUrl: string,
  endpoint: E,
  { params, query }: Pick<EndpointRequest<E>, 'params' | 'query'> = {},
): string {
  const search = query ? `?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}` : '';
  return `${serverUrl}${endpointPath(endpoint.path, params as Record<string, string> | undefined)}${search}`;
}

/** The success answer of `endpoint` read with its own schema (a field added later is ignored, not refused). */
export function answerOf<E extends Endpoint>(endpoint: E): ReadSuccess<EndpointData<E>> {
  const schema = endpoint.data ? successEnvelope(endpoint.data) : endpoint.response;
  if (!schema) return (body) => body as EndpointData<E>;
  return (body) => {
    const parsed = schema.safeParse(body);
    if (!parsed.success) return null;
    return (endpoint.data ? (parsed.data as { data: unknown }).data : parsed.data) as EndpointData<E>;
  };
}

/** A successful answer read as text: a CSV download. */
const textAnswer: ReadSuccess<string> = (body) => (typeof body === 'string' ? body : null);

/**
 * One call of an endpoint by its shared declaration (shared/api/), over the cookie session: the path and method the
 * server serves, the answer read by `readSuccess`, every failure in words. `read: 'text'` reads a successful answer as
 * text.
 */
export async function callEndpointAs<E extends Endpoint, T>(
  fetchFn: Fetch,
  serverUrl: string,
  endpoint: E,
  request: EndpointRequest<E>,
  readSuccess: ReadSuccess<T>,
  read: 'json' | 'text' = 'json',
): Promise<AccountResult<T>> {
  const method = methodOf(endpoint);
  const sendsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const answer = await sendRequest(
    fetchFn,
    endpointUrl(serverUrl, endpoint, request),
    {
      method,
      headers: sendsBody ? { 'content-type': 'application/json' } : {},
      body: sendsBody ? JSON.stringify(request.body ?? {}) : undefined,
      // The session cookie is the server's; the browser keeps it and sends it back.
      credentials: 'include',
    },
    read,
  );
  if (!answer) return { ...UNREACHABLE };
  const { response, body: json } = answer;
  if (isRedirect(response)) {
    return {
      ok: false,
      code: 'redirected',
      message:
        'The server address redirects elsewhere, and a sign-in or key is never sent on to another address: ask your IT provider for the final address and enter that as the Server URL.',
    };
  }
  if (response.ok) {
    const data = readSuccess(json);
    if (data !== null) return { ok: true, data };
    return {
      ok: false,
      code: 'unexpected_response',
      message: `The server gave an unexpected answer (HTTP ${response.status}).`,
      status: response.status,
    };
  }
  const envelope = ErrorEnvelope.safeParse(json);
  if (envelope.success) {
    const { code, message, details } = envelope.data.error;
    return { ok: false, code, message, status: response.status, ...(details ? { details } : {}) };
  }
  if (response.status === 404) {
    return {
      ok: false,
      code: 'not_found',
      message: 'This server has no account endpoints (HTTP 404). Check the Server URL.',
      status: 404,
    };
  }
  if (GATEWAY_STATUSES.has(response.status)) return { ...UNREACHABLE, status: response.status };
  return {
    ok: false,
    code: 'server_error',
    message: `The server answered HTTP ${response.status}.`,
    status: response.status,
  };
}

/** A call of `endpoint` whose answer is read with the endpoint's own schema. */
export function callEndpoint<E extends Endpoint>(
  fetchFn: Fetch,
  serverUrl: string,
  endpoint: E,
  request: EndpointRequest<E> = {},
): Promise<AccountResult<EndpointData<E>>> {
  return callEndpointAs(fetchFn, serverUrl, endpoint, request, answerOf(endpoint));
}

/** A call of `endpoint` (a `format=csv` query) whose successful answer is CSV text. */
export function downloadCsv<E extends Endpoint>(
  fetchFn: Fetch,
  serverUrl: string,
  endpoint: E,
  query: Readonly<Record<string, string | number>>,
): Promise<AccountResult<string>> {
  return callEndpointAs(fetchFn, serverUrl, endpoint, { query }, textAnswer, 'text');
}
