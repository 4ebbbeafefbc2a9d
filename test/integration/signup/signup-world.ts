import { expect } from 'vitest';
import { mailHeader, mailPart, startSmtpReceiver } from '../../helpers/smtp-receiver';
import type { TestServer } from '../../helpers/test-server';
import { json, SessionClient } from '../auth/session-client';

export const PASSWORD = 'a practice passphrase';
export const OTHER_PASSWORD = 'somebody else entirely';

let seq = 0;
/** A fresh email on the test's own domain (one per call). */
export const signupEmail = (what: string) => `${what}${++seq}-${process.pid}@signup.example`;

export const tokenOf = (link: string) => link.slice(link.indexOf('#') + 1);

export async function expectError(res: Response, status: number, code: string): Promise<void> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
}

/** POST /api/v1/signup from `client` (a new browser unless given). */
export async function signUp(
  server: Pick<TestServer, 'url'>,
  body: unknown,
  client = new SessionClient(server.url),
): Promise<{ client: SessionClient; res: Response }> {
  return { client, res: await client.post('/api/v1/signup', { body }) };
}

/**
 * Signs up `body`, waits for the work done after the answer (the account, its mail), then signs the new owner in with
 * the password chosen, as the sign-up page's next step does: sign-up itself signs nobody in.
 */
export async function signUpAndSignIn(
  server: Pick<TestServer, 'url' | 'runtime'>,
  body: { practice_name: string; email: string; password: string },
  client = new SessionClient(server.url),
): Promise<SessionClient> {
  expect((await signUp(server, body, client)).res.status).toBe(202);
  await server.runtime.signup.drain();
  expect((await client.login(body.email.trim(), body.password)).status).toBe(200);
  return client;
}

/** GET /api/v1/auth/session's data for `client`. */
export async function sessionOf(client: SessionClient) {
  const res = await client.get('/api/v1/auth/session');
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

/** A real SMTP server on 127.0.0.1 that keeps every message (no sign-in asked). */
export const startSmtp = () => startSmtpReceiver();

/** The plain-text part of a multipart message, its transfer encoding undone. */
export const plainText = (raw: string) => mailPart(raw, 'text/plain');

export const subjectOf = (raw: string) => mailHeader(raw, 'Subject');
