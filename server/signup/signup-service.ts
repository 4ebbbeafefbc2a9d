import { randomUUID } from 'node:crypto';
import { VERIFICATION_DAYS, type EmailVerifiedData, type SignupRequest } from '../../shared/api/signup';
import { normaliseEmail, type AccountService, type MemberView } from '../accounts/account-service';
import type { Account, EmailVerification } from '../accounts/account-records';
import type { HashingLimiter } from '../accounts/hashing-limiter';
import { hashPassword, passwordHashing } from '../accounts/passwords';
import { mustRecord, type AuditRecorder } from '../audit/audit-log';
import { ContractError, isContractError } from '../contract-error';
import type { LoginThrottle } from '../auth/login-throttle';
import { findByTokenIn, isLive, newLinkToken } from '../accounts/link-tokens';
import { AfterAnswer } from '../lifecycle';
import type { Logger } from '../logger';
import type { Mailer, MailMessage } from '../mail/mailer';
import { UniqueViolationError } from '../storage/postgres/postgres-document-store';
import { emailVerificationMail, signupExistingMail } from '../mail/messages';

export interface SignupServiceDeps {
  /** The accounts document's owner: a sign-up (account, organisation, link) is one update of it. */
  accounts: AccountService;
  audit: AuditRecorder;
  mailer: Mailer;
  /** Sign-in's limits in buckets of their own (LoginThrottle.scoped): sign-ups, and new verification links apart. */
  throttle: LoginThrottle;
  clock: () => Date;
  logger: Pick<Logger, 'error'>;
  /** Default: the process's one line of password work (passwords.ts). */
  hashing?: HashingLimiter;
}

/** What a request for a new verification link came to. */
export type ResendOutcome =
  { kind: 'sent' } | { kind: 'not_configured' } | { kind: 'already_verified'; verified_at: string };

const DAY_MS = 24 * 3600_000;

export const verificationLink = (origin: string, token: string) => `${origin}/console/verify-email#${token}`;

/**
 * Self-service sign-up (issue #27) and the proof of an owner's address. A sign-up creates the account, its
 * organisation with an inactive subscription, its audit event and (with SMTP) a verification link in one write; an
 * address that has an account already gets no change, only a notice by mail. Both cost one password hash before the
 * answer, and answer alike; the write and the mail come after the answer, so neither a storage round trip nor an SMTP
 * server's delay tells them apart, and nobody is signed in either way. A verification link is
 * single-use, valid VERIFICATION_DAYS, at most one per account (a new one replaces it), stored as its SHA-256 only.
 */
export class SignupService {
  /** Mail still being sent after its answer: waited for by drain(). */
  private readonly afterAnswer: AfterAnswer;
  private readonly resendThrottle: LoginThrottle;
  private readonly hashing: HashingLimiter;
  /** Sign-ups answered whose write is still running, by normalised email. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(private readonly deps: SignupServiceDeps) {
    this.resendThrottle = deps.throttle.scoped('resend');
    this.hashing = deps.hashing ?? passwordHashing;
    this.afterAnswer = new AfterAnswer((err) =>
      deps.logger.error({ err }, 'could not finish a sign-up or send its e-mail after the answer'),
    );
  }

  get mailEnabled(): boolean {
    return this.deps.mailer.enabled;
  }

  /**
   * Signs up `request` from client address `ip`, links at `origin`. Resolves once the request is accepted, the same for
   * every address: the one costly step (the password hash) is done before, and what differs is done after the answer
   * (a new owner's account, its audit event and its verification link in one write, then its mail; or, for an address
   * with an account, a notice by mail), so neither the answer nor its time tells which it was. Rejects with
   * 429 rate_limited, rateLimitUnavailable() (a shared throttle unreachable) or hashingBusy() (before anything is
   * counted).
   */
  async signUp(request: SignupRequest, ip: string, origin: string): Promise<void> {
    // The place in the password line first: a sign-up refused as busy did nothing, so it must not use up a try.
    const place = this.hashing.reserve();
    let passwordHash: string;
    try {
      const gate = await this.deps.throttle.begin(request.email, ip);
      if (!gate.ok) throw new ContractError('rate_limited', { retryAfterSeconds: gate.retryAfterSeconds });
      // Every sign-up counts, whatever becomes of it: the limit is on asking.
      gate.attempt.failed();
      passwordHash = await hashPassword(request.password, place);
    } finally {
      place.release();
    }
    const email = normaliseEmail(request.email);
    const written = afterThisTurn().then(() => this.write(request, passwordHash, ip, origin));
    // Settled (never rejected) while it is pending: what a sign-in of the address waits for (settled()).
    const pending = written.then(
      () => undefined,
      () => undefined,
    );
    this.writing.set(email, pending);
    void pending.finally(() => {
      if (this.writing.get(email) === pending) this.writing.delete(email);
    });
    this.afterAnswer.run(written.then((mail) => mail && this.send(mail.message, mail.purpose)));
  }

  /**
   * Resolves once no sign-up of `email` is still being written: a sign-in right after a sign-up (the page's "Sign in
   * now") finds the new account, whichever came first. At once when there is none.
   */
  settled(email: string): Promise<void> {
    return this.writing.get(normaliseEmail(email)) ?? Promise.resolve();
  }

  /**
   * A sign-up's write after its answer (see signUp): the new owner's account, or nothing for an address with one.
   * Returns the mail to send then, if any.
   */
  private async write(
    request: SignupRequest,
    passwordHash: string,
    ip: string,
    origin: string,
  ): Promise<{ message: MailMessage; purpose: string } | null> {
    const now = this.deps.clock();
    const issued = this.deps.mailer.enabled ? this.newLink(origin, now) : null;
    let created: MemberView;
    try {
      created = await this.deps.accounts.createSignedUpOwner(request.email, passwordHash, request.practice_name, {
        now,
        verification: issued?.record,
        audit: ({ account, member }) =>
          mustRecord(this.deps.audit, {
            event: 'account_created',
            source: 'web',
            ip,
            account_id: account.id,
            email: account.email,
            organisation_id: member.organisation_id,
            reason: 'signup',
          }),
      });
    } catch (err) {
      // Taken: here, or by a sign-up on another instance at the same moment (the database's unique email).
      if (!isContractError(err, 'account_exists') && !(err instanceof UniqueViolationError)) {
        throw err;
      }
      const notice = signupExistingMail({ to: request.email, signInLink: `${origin}/console/` });
      return this.mailEnabled ? { message: notice, purpose: 'sign-up notice' } : null;
    }
    return issued && { message: this.verificationMail(created.account, issued), purpose: 'email verification' };
  }

  /**
   * Uses the verification link of `token`: its account's address is proved (the first proof's time is kept), the link
   * removed. 400 invalid_link for an unknown, used or expired link.
   */
  async verify(token: string, ip: string): Promise<EmailVerifiedData> {
    const now = this.deps.clock();
    const known = findByTokenIn(this.deps.accounts.current.email_verifications, token);
    if (!known || !isLive(known, now) || !this.deps.accounts.findById(known.account_id)) {
      throw new ContractError('invalid_link');
    }
    const { account } = await this.deps.accounts.links.verifyEmail(token, now, ({ account, organisationId }) =>
      mustRecord(this.deps.audit, {
        event: 'email_verified',
        source: 'web',
        ip,
        account_id: account.id,
        email: account.email,
        organisation_id: organisationId,
      }),
    );
    return { email: account.email, verified_at: account.email_verified_at! };
  }

  /**
   * A new verification link for the signed-in `account` (replacing its old one), e-mailed after the answer. Nothing is
   * made for an address already proved, nor without SMTP. Throttled per email and address like sign-in, apart from it.
   */
  async resend(account: Account, organisationId: string, ip: string, origin: string): Promise<ResendOutcome> {
    if (account.email_verified_at) return { kind: 'already_verified', verified_at: account.email_verified_at };
    if (!this.mailEnabled) return { kind: 'not_configured' };
    const gate = await this.resendThrottle.begin(account.email, ip);
    if (!gate.ok) throw new ContractError('rate_limited', { retryAfterSeconds: gate.retryAfterSeconds });
    gate.attempt.failed();
    const now = this.deps.clock();
    const issued = this.newLink(origin, now);
    const current = await this.deps.accounts.links.issueEmailVerification(issued.record(account.id), now);
    if (current) return { kind: 'already_verified', verified_at: current };
    this.inBackground(this.verificationMail(account, issued), 'email verification');
    return { kind: 'sent' };
  }

  /** Drops expired verification links; returns how many (the purge job's). */
  purgeExpired(): Promise<number> {
    return this.deps.accounts.links.purgeExpired('email_verifications', this.deps.clock());
  }

  /** Waits for the mail still being sent (a stopping server; tests). */
  drain(): Promise<void> {
    return this.afterAnswer.drain();
  }

  private newLink(origin: string, now: Date) {
    const { token, hash } = newLinkToken();
    const expiresAt = new Date(now.getTime() + VERIFICATION_DAYS * DAY_MS).toISOString();
    return {
      link: verificationLink(origin, token),
      expiresAt,
      record: (accountId: string): EmailVerification => ({
        id: randomUUID(),
        account_id: accountId,
        token_hash: hash,
        created_at: now.toISOString(),
        expires_at: expiresAt,
      }),
    };
  }

  private verificationMail(account: Account, issued: { link: string; expiresAt: string }) {
    return emailVerificationMail({ to: account.email, link: issued.link, expiresAt: issued.expiresAt });
  }

  /** Sends `message` after the answer; a failure is logged (never the message). */
  private inBackground(message: MailMessage, purpose: string): void {
    this.afterAnswer.run(this.send(message, purpose));
  }

  private async send(message: MailMessage, purpose: string): Promise<void> {
    await this.deps.mailer.send(message, purpose);
  }
}

/** Resolves after the current turn of the event loop: the answer is written before the work after it starts. */
const afterThisTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
