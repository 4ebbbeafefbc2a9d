import { ContractError } from '../contract-error';
import type { LoginThrottle, LoginThrottleLimits } from '../auth/login-throttle';
import type { Logger } from '../logger';
import type { Mailer, MailMessage } from './mailer';

/** How many e-mails (and links) per hour: to one address, and on behalf of one organisation. */
export interface MailLimits {
  perRecipient: number;
  perOrganisation: number;
}

/** MAIL_LIMIT_PER_RECIPIENT and MAIL_LIMIT_PER_ORGANISATION's defaults (README, "How much mail"). */
export const DEFAULT_MAIL_LIMITS: MailLimits = { perRecipient: 5, perOrganisation: 30 };

export const MAIL_WINDOW_MS = 3600_000;

/**
 * The login throttle's limits that count mail: its per-email bucket is the recipient, its per-address bucket the
 * sender (an organisation, or the recipient itself for a mail nobody signed in asked for).
 */
export const mailThrottleLimits = (limits: MailLimits): LoginThrottleLimits => ({
  perAccount: limits.perRecipient,
  perIp: limits.perOrganisation,
  windowMs: MAIL_WINDOW_MS,
});

export type MailGate = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * The one limit on what the service sends (issue #35): at most `perRecipient` e-mails to one address and
 * `perOrganisation` on behalf of one organisation in any hour. Counted on the login throttle's machinery (the exact
 * sliding window, all buckets or none, in Redis when configured, so it holds across instances; buckets named by
 * SHA-256, never the address). Invitations, resends and reset links issued from the Team page count whether or not
 * SMTP is set (the link is handed on all the same, and the count is what stops probing); a refused one is not counted.
 */
export class MailLimit {
  constructor(private readonly throttle: LoginThrottle) {}

  /**
   * Counts one mail to `recipient` on behalf of organisation `organisationId`, or refuses it. Rejects with
   * rateLimitUnavailable() when a shared counter cannot be reached (the caller refuses: never sent uncounted).
   */
  async take(organisationId: string, recipient: string): Promise<MailGate> {
    return this.gate(`organisation:${organisationId}`, recipient);
  }

  /** As `take`, but refuses with 429 mail_limited (Retry-After: until the sender or the recipient may be sent to). */
  async require(organisationId: string, recipient: string): Promise<void> {
    const gate = await this.take(organisationId, recipient);
    if (!gate.ok) throw new ContractError('mail_limited', { retryAfterSeconds: gate.retryAfterSeconds });
  }

  /**
   * `inner` with every message counted against its recipient first: for mail nobody signed in asked for (sign-up's
   * verification link and notice), where the answer must not change. Over the limit, or with the counter unreachable,
   * the message is dropped and logged with its purpose only (never the address), and `send` resolves false.
   */
  mailer(inner: Mailer, logger: Pick<Logger, 'warn'>): Mailer {
    return {
      enabled: inner.enabled,
      send: async (message: MailMessage, purpose: string) => {
        if (!inner.enabled) return false;
        if (!(await this.selfService(message.to, purpose, logger))) return false;
        return inner.send(message, purpose);
      },
      close: () => inner.close(),
    };
  }

  /**
   * Counts a mail to `recipient` asked for by nobody signed in (its sender bucket is the recipient's own): whether it
   * may go. Never rejects: a refusal or an unreachable counter is logged without the address, and the mail dropped.
   */
  async selfService(recipient: string, purpose: string, logger: Pick<Logger, 'warn'>): Promise<boolean> {
    try {
      const gate = await this.gate(`recipient:${recipient}`, recipient);
      if (gate.ok) return true;
      logger.warn({ mail: purpose, retry_after_seconds: gate.retryAfterSeconds }, 'e-mail not sent: mail limit');
    } catch (err) {
      logger.warn({ mail: purpose, err: { name: (err as Error).name } }, 'e-mail not sent: mail limit unavailable');
    }
    return false;
  }

  private async gate(sender: string, recipient: string): Promise<MailGate> {
    const gate = await this.throttle.begin(recipient, sender);
    if (!gate.ok) return gate;
    // Every mail counts for the whole window: nothing gives it back.
    gate.attempt.failed();
    return { ok: true };
  }
}
