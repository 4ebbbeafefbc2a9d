import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Endpoint } from '../../shared/api/endpoint';
import { successEnvelope } from '../../shared/api/envelope';
import { jsonBody, jsonBodyUpTo, MAX_BODY_BYTES } from './json-body';
import { methodNotAllowed } from './method-not-allowed';
import { errorResponse, SESSION_SCHEME, type ApiRegistry, type SecurityRequirements } from './openapi-registry';
import { parseOrRefuse, type ErrorFor } from './validate-request';

type Parsed<E, K extends 'body' | 'query' | 'params'> = E extends { [P in K]: infer S extends z.ZodType }
  ? z.infer<S>
  : undefined;

/** What a handler is given: the request's parts as the endpoint's schemas parsed them. */
export interface RouteInput<E extends Endpoint> {
  body: Parsed<E, 'body'>;
  query: Parsed<E, 'query'>;
  params: Parsed<E, 'params'>;
}

type Handle<E extends Endpoint> = (
  input: RouteInput<E>,
  req: Request,
  res: Response,
  next: NextFunction,
) => void | Promise<void>;

interface RouteBase<E extends Endpoint> {
  endpoint: E;
  summary: string;
  description?: string;
  /** Declared on every operation (`NO_AUTH` where no credentials are read), and made true by `gates`. */
  security: SecurityRequirements;
  /**
   * Who is calling (the session, an API key, either): runs first, and in front of a wrong method's 405 too when every
   * method of the path authenticates with this same handler — a caller learns to sign in before the method.
   */
  authenticate?: RequestHandler;
  /** Then, before the body is read: the role, throttles. */
  gates?: RequestHandler[];
  /** The success's description, or its whole documentation beyond the schema (headers, other content types). */
  ok: string | (Omit<ResponseConfig, 'content'> & { content?: ResponseConfig['content'] });
  /** Every other answer worth documenting, by status (the kind's own answers are added: see kindResponses). */
  responses?: Record<number, ResponseConfig>;
}

/** A route whose handler is given its validated input. */
interface ValidatedRoute<E extends Endpoint> extends RouteBase<E> {
  /** The largest JSON body read, when the endpoint has one (MAX_BODY_BYTES unless said). */
  bodyLimitBytes?: number;
  /** The contract error for each part its schema refused (`invalid_request` unless said). */
  invalid?: { body?: ErrorFor; query?: ErrorFor; params?: ErrorFor };
  handle: Handle<E>;
}

/** A route that reads its request itself: the check's hot path, and Stripe's webhook (raw bytes). */
interface RawRoute<E extends Endpoint> extends RouteBase<E> {
  /** What the kind's answers are documented as, since the route reads its body itself. */
  bodyLimitBytes?: number;
  handlers: RequestHandler[];
}

export type RouteDefinition<E extends Endpoint = Endpoint> = ValidatedRoute<E> | RawRoute<E>;

/** A defined route: what the app mounts and what the document says of it, from the one definition. */
export interface Route {
  readonly endpoint: Endpoint;
  readonly authenticate?: RequestHandler;
  readonly handlers: readonly RequestHandler[];
  readonly operation: RouteConfig;
}

const DEFAULT_REFUSAL: ErrorFor = () => 'invalid_request';

/** `handle` given the endpoint's parts as its schemas parse them: body, then query, then path parameters. */
function validated<E extends Endpoint>(definition: ValidatedRoute<E>): RequestHandler {
  const { endpoint, invalid = {}, handle } = definition;
  const parts = (
    [
      ['body', endpoint.body, invalid.body],
      ['query', endpoint.query, invalid.query],
      ['params', endpoint.params, invalid.params],
    ] as const
  ).filter((part): part is readonly ['body' | 'query' | 'params', z.ZodType, ErrorFor | undefined] => !!part[1]);
  return (req, res, next) => {
    const input: Record<string, unknown> = { body: undefined, query: undefined, params: undefined };
    for (const [name, schema, errorFor = DEFAULT_REFUSAL] of parts) {
      const parsed = parseOrRefuse(schema, req[name], errorFor);
      if (!parsed.ok) return next(parsed.refusal);
      input[name] = parsed.value;
    }
    return handle(input as unknown as RouteInput<E>, req, res, next);
  };
}

const bodyLimitWords = (bytes: number) => (bytes % 1024 === 0 ? `${bytes / 1024} kB` : `${bytes} bytes`);

/**
 * The answers every route of a kind gives, documented unless the route says them in its own words: a JSON body can be
 * malformed, too large or not JSON; a required session can be missing.
 */
function kindResponses(definition: RouteDefinition): Record<number, ResponseConfig> {
  const { endpoint, security } = definition;
  const responses: Record<number, ResponseConfig> = {};
  const sessionRequired = security.length === 1 && Object.keys(security[0] ?? {}).join() === SESSION_SCHEME;
  if (sessionRequired) responses[401] = errorResponse('Sign in required');
  if (endpoint.body) {
    const limit = definition.bodyLimitBytes ?? MAX_BODY_BYTES;
    responses[400] = errorResponse('invalid_json: the body is not JSON; invalid_request: it is not the schema');
    responses[413] = errorResponse(`payload_too_large: the body is over ${bodyLimitWords(limit)}`);
    responses[415] = errorResponse(
      'unsupported_media_type: Content-Type is not application/json in UTF-8; unsupported_encoding',
    );
  }
  return responses;
}

function okResponse(definition: RouteDefinition): ResponseConfig {
  const { endpoint, ok } = definition;
  const { description, content, ...rest } = typeof ok === 'string' ? { description: ok } : ok;
  const schema = endpoint.data ? successEnvelope(endpoint.data) : endpoint.response;
  const json = schema ? { 'application/json': { schema } } : undefined;
  const allContent = json || content ? { ...json, ...content } : undefined;
  return { description, ...rest, ...(allContent ? { content: allContent } : {}) };
}

function operationOf(definition: RouteDefinition): RouteConfig {
  const { endpoint, summary, description, security } = definition;
  const request: RouteConfig['request'] = {
    ...(endpoint.params ? { params: endpoint.params as NonNullable<RouteConfig['request']>['params'] } : {}),
    ...(endpoint.query ? { query: endpoint.query as NonNullable<RouteConfig['request']>['query'] } : {}),
    ...(endpoint.body ? { body: { required: true, content: { 'application/json': { schema: endpoint.body } } } } : {}),
  };
  return {
    method: endpoint.method,
    path: endpoint.path,
    summary,
    ...(description ? { description } : {}),
    security,
    ...(Object.keys(request).length > 0 ? { request } : {}),
    responses: {
      [endpoint.status ?? 200]: okResponse(definition),
      ...kindResponses(definition),
      ...definition.responses,
    },
  };
}

/** One route from one definition: its gates, its body's reading and validation, its handler, its documentation. */
export function defineRoute<E extends Endpoint>(definition: RouteDefinition<E>): Route {
  const gates = [...(definition.authenticate ? [definition.authenticate] : []), ...(definition.gates ?? [])];
  let handlers: RequestHandler[];
  if ('handlers' in definition) handlers = [...gates, ...definition.handlers];
  else {
    const limit = definition.bodyLimitBytes;
    const body = !definition.endpoint.body ? [] : [limit === undefined ? jsonBody : jsonBodyUpTo(limit)];
    handlers = [...gates, ...body, validated(definition)];
  }
  return {
    endpoint: definition.endpoint,
    ...(definition.authenticate ? { authenticate: definition.authenticate } : {}),
    handlers,
    operation: operationOf(definition as unknown as RouteDefinition),
  };
}

/** Express's form of an OpenAPI path: `{name}` becomes `:name`. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** The authentication every route of a path runs first, when they share it. */
function sharedAuthentication(routes: readonly Route[]): RequestHandler[] {
  const first = routes[0]?.authenticate;
  return first && routes.every((route) => route.authenticate === first) ? [first] : [];
}

/**
 * Mounts each route on `app` behind `before` (the route table's: the session, fresh data), and after each path's
 * routes a 405 with the Allow header of its methods (behind their shared authentication). `area`: the prefix these
 * routes share, whose other paths (`/api/v1/billing/nope`) then answer as its routes do to a caller they refuse —
 * behind `before` and, when every route shares it, their authentication: 401 signed out, else the 404 that follows.
 */
export function mountRoutes(
  app: Router,
  routes: readonly Route[],
  before: readonly RequestHandler[] = [],
  area?: string,
): void {
  const byPath = new Map<string, Route[]>();
  for (const route of routes) {
    const path = expressPath(route.endpoint.path);
    byPath.set(path, [...(byPath.get(path) ?? []), route]);
    app[route.endpoint.method](path, ...before, ...route.handlers);
  }
  for (const [path, pathRoutes] of byPath) {
    const allow = pathRoutes.flatMap(({ endpoint }) =>
      endpoint.method === 'get' ? ['GET', 'HEAD'] : [endpoint.method.toUpperCase()],
    );
    app.all(path, ...before, ...sharedAuthentication(pathRoutes), methodNotAllowed(allow.join(', ')));
  }
  const areaGates = [...before, ...sharedAuthentication(routes)];
  // Nothing to run in front of them: the area's other paths go straight on to what follows (the 404).
  if (area !== undefined && areaGates.length > 0) app.use(area, ...areaGates);
}

/** Each route's operation in the document, in the order given. */
export function registerRoutes(registry: ApiRegistry, routes: readonly Route[]): void {
  for (const route of routes) registry.registerPath(route.operation);
}
