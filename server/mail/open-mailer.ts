import type { Config } from '../config';
import type { Logger } from '../logger';
import { noMailer, type Mailer } from './mailer';

/**
 * The mailer the configuration asks for. nodemailer is loaded only when SMTP_URL is set: a service that sends no mail
 * never loads it.
 */
export async function openMailer(
  config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>,
  logger: Pick<Logger, 'warn'>,
): Promise<Mailer> {
  if (!config.SMTP_URL || !config.MAIL_FROM) return noMailer;
  const { SmtpMailer } = await import('./smtp-mailer');
  return new SmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM, logger });
}
