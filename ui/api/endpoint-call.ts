import type { z } from 'zod';
import { endpointPath, type Endpoint } from '../../shared/api/endpoint';
import type { AccountResult } from './account-result';
import { envelopeData, sessionCall, type ReadSuccess } from './account-api';
import type { Fetch } from './server-request';

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

function readerOf<E extends Endpoint>(endpoint: E): ReadSuccess<EndpointData<E>> {
  if (endpoint.data) return envelopeData(endpoint.data) as ReadSuccess<EndpointData<E>>;
  const whole = endpoint.response;
  if (!whole) return (body) => body as EndpointData<E>;
  return (body) => {
    const parsed = whole.safeParse(body);
    return parsed.success ? (parsed.data as EndpointData<E>) : null;
  };
}

/**
 * One call of an endpoint by its shared declaration (shared/api/): the path and method the server serves, the answer
 * read with the endpoint's own schema (a field added later is ignored, not refused), every failure in words.
 */
export function callEndpoint<E extends Endpoint>(
  fetchFn: Fetch,
  serverUrl: string,
  endpoint: E,
  request: EndpointRequest<E> = {},
): Promise<AccountResult<EndpointData<E>>> {
  const query = request.query
    ? `?${new URLSearchParams(Object.entries(request.query).map(([k, v]) => [k, String(v)]))}`
    : '';
  const path = endpointPath(endpoint.path, request.params as Record<string, string> | undefined) + query;
  const method = endpoint.method.toUpperCase() as Uppercase<Endpoint['method']>;
  return sessionCall(fetchFn, serverUrl, path, method, readerOf(endpoint), request.body);
}
