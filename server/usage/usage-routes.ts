import { z } from 'zod';
import { USAGE_ENDPOINTS, type UsageData } from '../../shared/api/usage';
import { sessionOrApiKey, type SessionOrApiKeyDeps } from '../auth/session-or-api-key';
import type { KeyService } from '../keys/key-service';
import { API_KEY_REFUSALS, errorResponse, SESSION_OR_API_KEY_AUTH } from '../http/openapi-registry';
import { defineRoute, type Route } from '../http/route';
import { callerSubscription } from '../sessions/require-session';
import { BY_HAND_LABEL, BY_HAND_PREFIX } from './by-hand';
import { MCP_LABEL, MCP_PREFIX } from './mcp-caller';
import { usageCsv } from './usage-csv';
import type { UsageService } from './usage-service';

/**
 * How usage names a key: its prefix; the console's checks by hand; an AI assistant's tool calls; or a key revoked long
 * ago (archived).
 */
function labelOf(keys: KeyService, keyId: string): string {
  if (keyId.startsWith(BY_HAND_PREFIX)) return BY_HAND_LABEL;
  if (keyId.startsWith(MCP_PREFIX)) return MCP_LABEL;
  return keys.prefixOf(keyId) ?? 'an archived key';
}

export interface UsageRoutesDeps extends SessionOrApiKeyDeps {
  usage: UsageService;
  keys: KeyService;
}

/**
 * GET /api/v1/usage[?days=N&format=csv] (behind the cookie session): the caller's organisation's checks per day and
 * key — any member's session, or an `x-api-key` header (counted like a check). Its 405 is answered before either is
 * read.
 */
export function usageRoutes(deps: UsageRoutesDeps): Route[] {
  const { usage, keys } = deps;
  return [
    defineRoute({
      endpoint: USAGE_ENDPOINTS.read,
      summary: "The organisation's API-key requests per day (Sydney) and key: answered, refused (4xx), rate-limited",
      description:
        'Every day of the range is listed, oldest first, today included; kept 400 days. Counted for requests that carry a valid key of the organisation (checks, and reads with the key). `format=csv` answers `text/csv` (an attachment, usage-<from>-<to>.csv) with one row per day and key.',
      security: SESSION_OR_API_KEY_AUTH,
      gates: [sessionOrApiKey(deps)],
      ok: {
        description: 'Usage per day',
        content: {
          'text/csv': {
            schema: z.string().meta({
              description: 'Header row (date,key_prefix,answered,refused,rate_limited), then one row per day and key',
            }),
          },
        },
      },
      responses: {
        400: errorResponse('invalid_request: days is not a whole number from 1 to 400, or format is not json or csv'),
        ...API_KEY_REFUSALS,
      },
      handle: async ({ query: { days, format } }, _req, res) => {
        const subscription = callerSubscription(res);
        const data = await usage.view(subscription?.id ?? null, days, (keyId) => labelOf(keys, keyId));
        res.setHeader('Cache-Control', 'no-store');
        if (format === 'csv') {
          res.setHeader('Content-Type', 'text/csv; charset=utf-8');
          res.setHeader('Content-Disposition', `attachment; filename="usage-${data.from}-${data.to}.csv"`);
          res.send(usageCsv(data));
          return;
        }
        res.json({ success: true, data } satisfies { success: true; data: UsageData });
      },
    }),
  ];
}
