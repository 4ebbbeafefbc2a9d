import type { Request, RequestHandler, Response, Router } from 'express';
import { API_ERRORS } from '../../shared/api/errors';
import { DEFAULT_RATE_LIMIT } from '../../shared/api/keys';
import { JsonRpcResponse, MCP_ENDPOINTS, MCP_PATH } from '../../shared/api/mcp';
import { ContractError } from '../contract-error';
import { errorResponse, jsonResponse, MCP_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { identifyApiKey, xApiKey, type ApiKeyGateDeps, type KeyOf } from '../keys/require-api-key';
import type { OriginPolicy } from '../sessions/origin-policy';
import { jsonRpcRefusal } from './json-rpc-refusal';
import { MAX_MCP_BODY_BYTES } from './mcp-body';
import { mcpSdk, type McpSdk } from './mcp-sdk';
import { mcpServerFor } from './mcp-server';
import type { McpTool } from './mcp-tools';
import { limitProtocolMessages, PROTOCOL_MESSAGES_PER_CALL } from './protocol-limit';
import type { ToolCallDeps } from './tool-call';

/** The realm of the Bearer challenge (RFC 6750 §3). */
const REALM = 'mcp';

/**
 * The key as MCP clients send one: `Authorization: Bearer sk_live_…` (what their header settings and the MCP
 * authorization spec name), or the check's `x-api-key`. Another Authorization scheme alone is a credential that is
 * not a key: refused as an invalid one, not as a missing one.
 */
export const bearerOrApiKey: KeyOf = (req) => {
  const authorization = req.headers.authorization;
  const token = authorization === undefined ? undefined : /^Bearer +(\S+) *$/i.exec(authorization)?.[1];
  if (token !== undefined) return token;
  return xApiKey(req) ?? (authorization === undefined ? undefined : '');
};

/**
 * DNS rebinding (the transport spec: "Servers MUST validate the Origin header"): a request a web page sends carries
 * its Origin, which must then be this service's own (PUBLIC_URL, or where it listens) or the extension's. MCP clients
 * that are not browsers send none. In front of everything, so a page cannot even probe for a key. (The SDK's
 * transport options for this, allowedOrigins and enableDnsRebindingProtection, are deprecated in 1.x in favour of
 * middleware like this one, and know nothing of PUBLIC_URL.)
 */
export function mcpOriginGuard(origins: OriginPolicy): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined || origins.isAllowed(origin, req)) return next();
    jsonRpcRefusal(res, new ContractError('forbidden_origin'));
  };
}

/**
 * The answer to a caller without a valid key, as the MCP authorization spec has it (RFC 6750's challenge: no error
 * code when no key was sent, `invalid_token` for a key that is not one) in the REST API's envelope; an inactive
 * subscription is the REST API's 403. Before it, such a caller is counted against its address like the check's, so
 * guessing keys here costs the guesser as much as there.
 */
function refuseWithoutKey(deps: Pick<ApiKeyGateDeps, 'keys' | 'clock' | 'rateLimit'>): RequestHandler[] {
  const unidentified = deps.rateLimit.map(
    (handler): RequestHandler =>
      (req, res, next) =>
        res.locals.caller ? next() : handler(req, res, next),
  );
  const refuse: RequestHandler = (_req, res, next) => {
    const outcome = res.locals.apiKey;
    if (outcome?.ok) {
      deps.keys.recordUse(outcome.key.id, deps.clock());
      return next();
    }
    const reason = outcome?.reason ?? 'missing_api_key';
    if (reason === 'subscription_inactive') return next(new ContractError(reason));
    const challenge =
      reason === 'missing_api_key'
        ? `Bearer realm="${REALM}"`
        : `Bearer realm="${REALM}", error="invalid_token", error_description="${API_ERRORS.invalid_api_key.message}"`;
    const message = reason === 'missing_api_key' ? 'Missing API key: send Authorization: Bearer <key>' : undefined;
    next(new ContractError(reason, { headers: { 'WWW-Authenticate': challenge }, ...(message ? { message } : {}) }));
  };
  return [...unidentified, refuse];
}

/** One stateless MCP exchange: a server and a transport for this request alone, closed with it. */
function serveMcp(tools: readonly McpTool[], calls: ToolCallDeps): RequestHandler {
  const exchange = async (sdk: McpSdk, req: Request, res: Response) => {
    const server = mcpServerFor(sdk, tools, calls, res.locals.caller!);
    const transport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      // One answer per request, as JSON: nothing is streamed (no tool reports progress), and nothing is held open.
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
    });
    res.once('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, res.locals.mcpBody);
  };
  return (req: Request, res: Response, next) => {
    mcpSdk()
      .then((sdk) => exchange(sdk, req, res))
      .catch(next);
  };
}

export interface McpRoutesDeps extends Pick<ApiKeyGateDeps, 'keys' | 'clock' | 'rateLimit'>, ToolCallDeps {
  tools: readonly McpTool[];
  origins: OriginPolicy;
}

/**
 * POST /mcp: the service as an MCP server (Streamable HTTP, stateless) for AI assistants, on the API key. The key
 * opens the door; each tool call is then counted on the key's rate limit and in usage (tool-call.ts), while the
 * protocol's own messages (initialize, tools/list, ping, notifications), which a client sends on its own, are counted
 * apart on a larger allowance of the key's (protocol-limit.ts) and not in usage.
 */
export function mcpRoutes(deps: McpRoutesDeps): Route[] {
  const { keys, clock } = deps;
  return [
    defineRoute({
      endpoint: MCP_ENDPOINTS.call,
      summary: 'The service as an MCP server for AI assistants (Model Context Protocol, Streamable HTTP)',
      description:
        'JSON-RPC 2.0 messages of the Model Context Protocol (initialize, tools/list, tools/call …), stateless: no session, any instance answers. Tools: check_postcode, get_declaration, list_declarations, find_postcodes, get_catchment_status, list_alerts. The API key as `Authorization: Bearer <key>` (or `x-api-key`). Each tools/call that reaches its tool counts one request against the key\'s rate limit, shared with the REST API, and appears in usage as "AI assistant (MCP)"; a refused call is a tool result with `isError: true` and the REST API\'s message. ' +
        `The other messages (initialize, tools/list, ping, notifications, and a tools/call that reaches no tool: an unknown name, arguments its schema refuses) count apart, ${PROTOCOL_MESSAGES_PER_CALL} times the key's rate limit a minute (${PROTOCOL_MESSAGES_PER_CALL * DEFAULT_RATE_LIMIT} by default); over it the whole request is refused 429 with Retry-After, as a JSON-RPC error. ` +
        '`Accept` must list application/json and text/event-stream; the answer is application/json.',
      security: MCP_AUTH,
      bodyLimitBytes: MAX_MCP_BODY_BYTES,
      ok: 'The JSON-RPC response (202 with no body when the request held only notifications)',
      responses: {
        400: jsonResponse(JsonRpcResponse, 'Not JSON or not JSON-RPC (-32700), an invalid request (-32600)'),
        401: errorResponse('Missing API key / Invalid API key; WWW-Authenticate: Bearer'),
        403: errorResponse('API subscription is inactive (or, as a JSON-RPC error, a foreign Origin)'),
        405: jsonResponse(JsonRpcResponse, 'GET and DELETE: no stream and no session to end (stateless)'),
        406: jsonResponse(JsonRpcResponse, 'Accept does not list application/json and text/event-stream'),
        413: jsonResponse(JsonRpcResponse, 'Body over 64 kB'),
        415: jsonResponse(JsonRpcResponse, 'Content-Type is not application/json'),
        429: errorResponse(
          "Without a valid key: over the limit of the address. With one, as a JSON-RPC error: over the key's allowance of protocol messages. Wait Retry-After seconds",
        ),
      },
      handlers: [
        mcpOriginGuard(deps.origins),
        identifyApiKey(keys, clock, null, bearerOrApiKey),
        ...refuseWithoutKey(deps),
        limitProtocolMessages(deps.rateLimitCounter, clock, deps.tools),
        serveMcp(deps.tools, deps),
      ],
    }),
  ];
}

/**
 * Mounts POST /mcp behind `before` (fresh data: keys and subscriptions as every instance committed them), and every
 * other method of the path answered 405 as the transport spec has it: a JSON-RPC error, Allow: POST (the stateless
 * server opens no stream for GET and has no session for DELETE to end).
 */
export function mountMcp(
  app: Router,
  routes: readonly Route[],
  before: readonly RequestHandler[],
  origins: OriginPolicy,
) {
  for (const route of routes) app.post(route.endpoint.path, ...before, ...route.handlers);
  app.all(MCP_PATH, mcpOriginGuard(origins), (_req, res) => {
    res.setHeader('Allow', 'POST');
    jsonRpcRefusal(res, new ContractError('method_not_allowed'));
  });
}
