import { createTransport } from 'nodemailer';
import type { Logger } from '../logger';
import type { Mailer, MailMessage } from './mailer';

export interface SmtpMailerOptions {
  /** SMTP_URL: smtp:// (STARTTLS when the server offers it) or smtps://, with the credentials in it. */
  url: string;
  /** MAIL_FROM. */
  from: string;
  logger: Pick<Logger, 'warn'>;
}

/** What of a nodemailer error may be logged: its code and the SMTP reply code, never its text (it may quote input). */
function errorFields(err: unknown): { code: string | null; response_code: number | null } {
  const { code, responseCode } = (err ?? {}) as { code?: unknown; responseCode?: unknown };
  return {
    code: typeof code === 'string' ? code : null,
    response_code: typeof responseCode === 'number' ? responseCode : null,
  };
}

/**
 * E-mail over SMTP with nodemailer: one connection per message (a few invitations a day do not need a pool), with
 * timeouts short enough that an admin waiting for "emailed" is answered within seconds when the server is down.
 * nodemailer's own logging stays off: it would print the conversation, the message with its link included.
 */
export class SmtpMailer implements Mailer {
  readonly enabled = true;
  private readonly transport: ReturnType<typeof createTransport>;

  constructor(private readonly options: SmtpMailerOptions) {
    this.transport = createTransport(
      {
        url: options.url,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
        logger: false,
        debug: false,
        // Messages are built here from text: nothing in them may make nodemailer read a file or fetch a URL.
        disableFileAccess: true,
        disableUrlAccess: true,
      },
      { from: options.from },
    );
  }

  async send(message: MailMessage, purpose: string): Promise<boolean> {
    try {
      await this.transport.sendMail(message);
      return true;
    } catch (err) {
      this.options.logger.warn({ mail: purpose, ...errorFields(err) }, 'could not send an e-mail');
      return false;
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
