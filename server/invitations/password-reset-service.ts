import { randomUUID } from 'node:crypto';
import { RESET_HOURS, type ResetLinkData } from '../../shared/api/invitations';
import { mayAssign } from '../../shared/api/team';
import type { AccountService } from '../accounts/account-service';
import type { Account, Member, PasswordReset } from '../accounts/account-records';
import { findByTokenIn, isLive, newLinkToken } from '../accounts/link-tokens';
import { hashPassword } from '../accounts/passwords';
import { ContractError } from '../contract-error';
import { mustRecord, type AuditRecorder } from '../audit/audit-log';
import type { Logger } from '../logger';
import type { MailLimit } from '../mail/mail-limit';
import type { Mailer } from '../mail/mailer';
import { passwordResetMail } from '../mail/messages';
import type { SessionStore } from '../sessions/session-store';
import type { TeamActor } from '../team/team-service';
import { AfterAnswer } from '../lifecycle';
import { resetLink } from './links';

export interface PasswordResetServiceDeps {
  /** The accounts document's owner: a link is stored and used by its operations (accounts.links). */
  accounts: AccountService;
  audit: AuditRecorder;
  mailer: Mailer;
  /**
   * The one limit on what the service sends: a link an owner or admin issues counts on their organisation (429 when
   * over), a mail asked for by nobody signed in on its recipient (dropped when over: the answer stays the same).
   * Absent for the operator's admin CLI, which is not limited.
   */
  mailLimit?: MailLimit;
  /** Where a reset ends every session of the account, on every instance. */
  sessions: SessionStore;
  clock: () => Date;
  logger: Pick<Logger, 'error' | 'warn'>;
}

/** A reset link in the making: the record stored and the link it stands for. */
interface Issued {
  reset: PasswordReset;
  link: string;
}

/**
 * Password resets: a single-use link valid RESET_HOURS, asked for by the person (e-mailed, only when SMTP is set) or
 * issued by an owner or admin (shown to them once, e-mailed too when SMTP is set). An account has at most one live
 * link, a new one replacing it, so that requests nobody authenticated cannot grow the document. Using the link sets
 * the password, ends every session of the account and removes the link.
 */
export class PasswordResetService {
  /** Requests being processed after their answer (request()): waited for by drain(). */
  private readonly afterAnswer: AfterAnswer;

  constructor(private readonly deps: PasswordResetServiceDeps) {
    this.afterAnswer = new AfterAnswer((err) =>
      deps.logger.error({ err }, 'could not process a password-reset request'),
    );
  }

  get mailEnabled(): boolean {
    return this.deps.mailer.enabled;
  }

  /**
   * A reset asked for by whoever knows `email`, processed after the answer (which is the same whatever the email):
   * neither the answer nor its timing tells whether the account exists. A link is made and e-mailed only when the
   * account exists and SMTP is set. Audited either way, as a failed sign-in is.
   */
  request(email: string, ip: string, origin: string): void {
    this.afterAnswer.run(this.processRequest(email, ip, origin));
  }

  /** Waits for the requests still being processed (a stopping server; tests). */
  drain(): Promise<void> {
    return this.afterAnswer.drain();
  }

  /** A reset link for the member `accountId`, issued by an owner or admin (within mayAssign). */
  async issue(actor: TeamActor, organisationId: string, accountId: string, origin: string): Promise<ResetLinkData> {
    const target = this.deps.accounts.membersOf(organisationId).find((m) => m.account.id === accountId);
    if (!target) throw new ContractError('member_not_found');
    if (actor.member && !mayAssign(actor.member.role, target.member.role)) {
      throw new ContractError('forbidden_role');
    }
    if (actor.member) await this.deps.mailLimit?.require(organisationId, target.account.email);
    const { reset, link } = await this.store(accountId, origin);
    await this.deps.audit.record({
      event: 'password_reset_requested',
      ...actor.by,
      account_id: actor.member?.account_id ?? null,
      email: actor.member ? actor.email : null,
      organisation_id: organisationId,
      member_email: target.account.email,
      role: target.member.role,
    });
    const emailed = await this.mail(target.account, link, reset.expires_at, actor);
    return { link, expires_at: reset.expires_at, emailed };
  }

  /**
   * Sets the password of the link's account, removes the link and ends every session of the account on every
   * instance (the caller then signs the person in afresh). Returns the account and its membership.
   */
  async reset(token: string, password: string, ip: string): Promise<{ account: Account; member: Member }> {
    // Checked before the password is hashed: a dead link costs no scrypt.
    const known = findByTokenIn(this.deps.accounts.current.password_resets, token);
    if (!known || !isLive(known, this.deps.clock()) || !this.deps.accounts.findById(known.account_id)) {
      throw new ContractError('invalid_link');
    }
    const password_hash = await hashPassword(password);
    const now = this.deps.clock();
    const changed = await this.deps.accounts.links.resetPassword(
      token,
      password_hash,
      now,
      // With its change: a password set through a link always has its event (never logged and dropped).
      ({ accountId, email, organisationId, role }) =>
        mustRecord(this.deps.audit, {
          event: 'password_reset',
          source: 'web',
          ip,
          account_id: accountId,
          email,
          organisation_id: organisationId,
          member_email: email,
          role,
        }),
    );
    // Sessions signed in with the old password (an intruder's among them) end now, everywhere.
    await this.deps.sessions.destroyAllFor(changed.accountId);
    const account = this.deps.accounts.findById(changed.accountId);
    const member = this.deps.accounts.membershipOf(changed.accountId);
    if (!account || !member) throw new ContractError('invalid_link');
    return { account, member };
  }

  /** Drops expired reset links; returns how many (the purge job's). */
  purgeExpired(): Promise<number> {
    return this.deps.accounts.links.purgeExpired('password_resets', this.deps.clock());
  }

  private async processRequest(email: string, ip: string, origin: string): Promise<void> {
    const account = this.deps.accounts.findByEmail(email);
    const member = account && this.deps.accounts.membershipOf(account.id);
    let reason: string | undefined;
    let issued: Issued | undefined;
    const limit = this.deps.mailLimit;
    if (!account || !member) reason = 'unknown_email';
    else if (!this.deps.mailer.enabled) reason = 'mail_disabled';
    // Before the link is made: a new link would end the one an earlier mail carries.
    else if (limit && !(await limit.selfService(account.email, 'password reset', this.deps.logger))) {
      reason = 'mail_limited';
    } else issued = await this.store(account.id, origin);
    await this.deps.audit.record({
      event: 'password_reset_requested',
      source: 'web',
      ip,
      account_id: account?.id ?? null,
      email,
      organisation_id: member?.organisation_id,
      ...(member && { member_email: account!.email, role: member.role }),
      reason,
    });
    if (issued && account) await this.mail(account, issued.link, issued.reset.expires_at, null);
  }

  /** A new live link for `accountId`, replacing any other it has (and dropping every expired one). */
  private async store(accountId: string, origin: string): Promise<Issued> {
    const now = this.deps.clock();
    const { token, hash } = newLinkToken();
    const reset: PasswordReset = {
      id: randomUUID(),
      account_id: accountId,
      token_hash: hash,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + RESET_HOURS * 3600_000).toISOString(),
    };
    await this.deps.accounts.links.issuePasswordReset(reset, now);
    return { reset, link: resetLink(origin, token) };
  }

  private async mail(account: Account, link: string, expiresAt: string, issuer: TeamActor | null): Promise<boolean> {
    if (!this.deps.mailer.enabled) return false;
    return this.deps.mailer.send(
      passwordResetMail({
        to: account.email,
        link,
        expiresAt,
        issuedBy: issuer?.member ? issuer.email : null,
      }),
      'password reset',
    );
  }
}
