import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { expect } from 'vitest';
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

/** GET /api/v1/auth/session's data for `client`. */
export async function sessionOf(client: SessionClient) {
  const res = await client.get('/api/v1/auth/session');
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

export interface Received {
  to: string[];
  raw: string;
}

/** A real SMTP server on 127.0.0.1 (ephemeral port) that keeps every message. */
export async function startSmtp(): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  return { port, received, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The plain-text part of a multipart message, its transfer encoding undone. */
export function plainText(raw: string): string {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)![1]!;
  const found = raw.split(`--${boundary}`).find((p) => /content-type:\s*text\/plain/i.test(p))!;
  const at = found.search(/\r?\n\r?\n/);
  const head = found.slice(0, at);
  const body = found.slice(at).trim();
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) return decodeQuotedPrintable(body);
  if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

export function subjectOf(raw: string): string {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, ' ');
  return /^Subject:\s*(.*)$/im.exec(head)?.[1] ?? '';
}
