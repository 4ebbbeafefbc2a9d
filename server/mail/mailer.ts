/** One e-mail: a plain-text body and the same in simple HTML. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Where the service's e-mails go: SMTP (SMTP_URL, with nodemailer) or nowhere. The links they carry are the only copy
 * the person gets besides the one shown once to whoever asked, so an implementation never logs a message's content.
 */
export interface Mailer {
  /** Whether e-mail is sent at all (SMTP_URL is set). */
  readonly enabled: boolean;
  /**
   * Sends `message`. Resolves true once the SMTP server accepted it, false when it could not be sent (logged with
   * `purpose` and the SMTP error's code, never the message, its link or its recipient). Never rejects.
   */
  send(message: MailMessage, purpose: string): Promise<boolean>;
  close(): Promise<void>;
}

/** SMTP_URL unset: nothing is sent, and the links are only shown to whoever asked for them. */
export const noMailer: Mailer = {
  enabled: false,
  send: async () => false,
  close: async () => undefined,
};
