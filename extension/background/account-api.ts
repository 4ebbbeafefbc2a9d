import { z } from 'zod';
import { SessionData } from '../../shared/api/auth';
import { ErrorEnvelope, successEnvelope } from '../../shared/api/envelope';
import { KeyStatusData, NewKeyData, RevokedKeyData } from '../../shared/api/keys';
import type { AccountResult } from '../common/messaging';
import { GATEWAY_STATUSES, sendRequest, type Fetch } from './server-request';

const UNREACHABLE = {
  ok: false,
  code: 'unreachable',
  message: 'Server unreachable: check the Server URL and the network.',
} as const;

async function accountCall<T extends z.ZodType>(
  fetchFn: Fetch,
  serverUrl: string,
  path: string,
  method: 'GET' | 'POST',
  schema: T,
  body?: unknown,
): Promise<AccountResult<z.infer<T>>> {
  const answer = await sendRequest(fetchFn, `${serverUrl}/api/v1${path}`, {
    method,
    headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
    body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    // The session cookie is the server's; the browser keeps it and sends it back.
    credentials: 'include',
  });
  if (!answer) return { ...UNREACHABLE };
  const { response, body: json } = answer;
  if (response.ok) {
    const parsed = successEnvelope(schema).safeParse(json);
    if (parsed.success) return { ok: true, data: (parsed.data as { data: z.infer<T> }).data };
    return {
      ok: false,
      code: 'unexpected_response',
      message: `The server gave an unexpected answer (HTTP ${response.status}).`,
      status: response.status,
    };
  }
  const envelope = ErrorEnvelope.safeParse(json);
  if (envelope.success) {
    return { ok: false, code: envelope.data.error.code, message: envelope.data.error.message, status: response.status };
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

/**
 * The account and key endpoints (sign-in, session and key generate/regenerate/revoke/status over the cookie session),
 * every answer and failure in words for the options page.
 */
export const accountApi = {
  /** The login answer's body is not relied on: the session is read back with `session` afterwards. */
  login: (f: Fetch, url: string, credentials: { email: string; password: string }) =>
    accountCall(f, url, '/auth/login', 'POST', z.unknown(), credentials),
  logout: (f: Fetch, url: string) => accountCall(f, url, '/auth/logout', 'POST', z.unknown()),
  session: (f: Fetch, url: string) => accountCall(f, url, '/auth/session', 'GET', SessionData),
  keyStatus: (f: Fetch, url: string) => accountCall(f, url, '/keys/status', 'GET', KeyStatusData),
  generateKey: (f: Fetch, url: string) => accountCall(f, url, '/keys/generate', 'POST', NewKeyData),
  regenerateKey: (f: Fetch, url: string) => accountCall(f, url, '/keys/regenerate', 'POST', NewKeyData),
  revokeKey: (f: Fetch, url: string) => accountCall(f, url, '/keys/revoke', 'POST', RevokedKeyData),
};
