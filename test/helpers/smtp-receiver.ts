import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server took it: the envelope's recipients and the raw RFC 5322 text. */
export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface SmtpReceiver {
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1, ephemeral port, that keeps every message. With `auth`, it takes
 * only that user name and password (over plain SMTP: loopback only); without, it asks for none.
 */
export async function startSmtpReceiver(auth?: { user: string; password: string }): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    logger: false,
    ...(auth
      ? {
          allowInsecureAuth: true,
          onAuth(login, _session, callback) {
            if (login.username === auth.user && login.password === auth.password) callback(null, { user: auth.user });
            else callback(new Error('Invalid username or password'));
          },
        }
      : { authOptional: true }),
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

/** One part of a multipart message (text/plain or text/html), its transfer encoding undone. */
export function mailPart(raw: string, type: 'text/plain' | 'text/html'): string {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)![1]!;
  const found = raw.split(`--${boundary}`).find((p) => new RegExp(`content-type:\\s*${type}`, 'i').test(p))!;
  const at = found.search(/\r?\n\r?\n/);
  const head = found.slice(0, at);
  const body = found.slice(at).trim();
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) return decodeQuotedPrintable(body);
  if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

/** A header of the message, folded lines joined ('' when absent). */
export function mailHeader(raw: string, name: string): string {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, ' ');
  return new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';
}
