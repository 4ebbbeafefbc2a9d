import { z } from 'zod';
import { SessionData } from '../../shared/api/auth';
import { ErrorEnvelope, successEnvelope } from '../../shared/api/envelope';
import { KeyStatusData, NewKeyData, RevokedKeyData } from '../../shared/api/keys';
import type { AccountResult } from './account-result';
import { GATEWAY_STATUSES, isRedirect, sendRequest, type Fetch } from './server-request';

const UNREACHABLE = {
  ok: false,
  code: 'unreachable',
  message: 'Server unreachable: check the Server URL and the network.',
} as const;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a successful answer's body becomes the result's data; null: not the expected answer. */
export type ReadSuccess<T> = (body: unknown) => T | null;

/** The `data` of a `{success: true, data}` envelope. */
export function envelopeData<T extends z.ZodType>(schema: T): ReadSuccess<z.infer<T>> {
  return (body) => {
    const parsed = successEnvelope(schema).safeParse(body);
    return parsed.success ? (parsed.data as { data: z.infer<T> }).data : null;
  };
}

/**
 * One call of an endpoint over the cookie session, its answer or failure in words. `read: 'text'` reads a successful
 * answer as text (a CSV download).
 */
export async function sessionCall<T>(
  fetchFn: Fetch,
  serverUrl: string,
  /** From the server's root: `/api/v1/…` (an endpoint's path, its parameters filled in, and its query). */
  path: string,
  method: Method,
  readSuccess: ReadSuccess<T>,
  body?: unknown,
  read: 'json' | 'text' = 'json',
): Promise<AccountResult<T>> {
  const sendsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const answer = await sendRequest(
    fetchFn,
    `${serverUrl}${path}`,
    {
      method,
      headers: sendsBody ? { 'content-type': 'application/json' } : {},
      body: sendsBody ? JSON.stringify(body ?? {}) : undefined,
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

/** One call whose successful answer is the `{success: true, data}` envelope of `schema`. */
export function accountCall<T extends z.ZodType>(
  fetchFn: Fetch,
  serverUrl: string,
  path: string,
  method: Method,
  schema: T,
  body?: unknown,
): Promise<AccountResult<z.infer<T>>> {
  return sessionCall(fetchFn, serverUrl, `/api/v1${path}`, method, envelopeData(schema), body);
}

/**
 * The account and key endpoints (sign-in, session and key generate/regenerate/revoke/status over the cookie session),
 * every answer and failure in words: the extension's background calls them for its options page, the console directly.
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
