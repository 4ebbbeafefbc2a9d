import { randomUUID } from 'node:crypto';
import {
  INVITATION_DAYS,
  type Invitation as InvitationView,
  type InvitationPreview,
  type NewInvitationData,
} from '../../shared/api/invitations';
import { mayAssign, type Role } from '../../shared/api/team';
import { isSubscriptionActive, type AccountService } from '../accounts/account-service';
import type { Account, Invitation, Member } from '../accounts/account-records';
import { findByTokenIn, isLive, newLinkToken } from '../accounts/link-tokens';
import { hashPassword } from '../accounts/passwords';
import { ContractError } from '../contract-error';
import { mustRecord, type AuditEventType, type AuditInput, type AuditRecorder } from '../audit/audit-log';
import type { AlongsideWrite } from '../storage/document-store';
import { alongsideAll } from '../storage/alongside-all';
import type { Mailer } from '../mail/mailer';
import type { MailLimit } from '../mail/mail-limit';
import { invitationMail } from '../mail/messages';
import type { TeamActor } from '../team/team-service';
import { invitationLink } from './links';

/** Why invitations were revoked without anyone revoking them (the audit event's reason). */
export type RevokeReason = 'inviter_removed' | 'inviter_role_changed';

export interface InvitationServiceDeps {
  /** The accounts document's owner: an acceptance is one update of it (accounts.links). */
  accounts: AccountService;
  audit: AuditRecorder;
  mailer: Mailer;
  /** The one limit on what the service sends: every invitation made or resent counts. */
  mailLimit: MailLimit;
  /** Billing with Stripe is on (STRIPE_* set): only an organisation with an active subscription invites. */
  billing: boolean;
  clock: () => Date;
  /** Single sign-on's record of who was removed: forgotten when they accept a new invitation, with the acceptance. */
  sso?: { departures: { rejoined(organisationId: string, email: string): AlongsideWrite } };
}

const DAY_MS = 24 * 3600_000;

/** An invitation as the team's admins see it: never its token's hash. */
function view(invitation: Invitation): InvitationView {
  const { id, email, role, invited_by, created_at, expires_at } = invitation;
  return { id, email, role, invited_by, created_at, expires_at };
}

/**
 * Whether the member who sent `invitation` (null: the operator) still may invite its role, their membership found by
 * `membershipOf` (their email).
 */
function inviterStands(invitation: Invitation, membershipOf: (email: string) => Member | undefined): boolean {
  if (invitation.invited_by === null) return true;
  const member = membershipOf(invitation.invited_by);
  return member?.organisation_id === invitation.organisation_id && mayAssign(member.role, invitation.role);
}

/**
 * Invitations to join an organisation: created, listed, resent and revoked by its owners and admins (within
 * mayAssign), looked up and accepted by whoever holds the link. A link is single-use: accepting creates the account
 * and its membership and removes the invitation in one update of the accounts document, so a replayed or concurrent
 * acceptance finds nothing to accept. Every write also drops the expired invitations.
 *
 * Sending is the service's own voice (issue #35): with SMTP set, only a member whose address is proved invites, and
 * with billing on only while the subscription is active; every invitation made or resent counts against the mail
 * limit; and whether the address has an account anywhere changes nothing in the answer (the invitee learns at the
 * link). An invitation lives only as long as its sender may send it: removing or demoting them revokes it, and an
 * acceptance checks it again in its write.
 */
export class InvitationService {
  constructor(private readonly deps: InvitationServiceDeps) {}

  /** The organisation's pending invitations (not expired), oldest first. */
  list(organisationId: string): InvitationView[] {
    const now = this.deps.clock();
    return this.deps.accounts.current.invitations
      .filter((i) => i.organisation_id === organisationId && isLive(i, now))
      .map(view);
  }

  /**
   * Invites `email` with `role`, replacing a pending invitation of the same email (its link stops working) when the
   * actor could revoke it. The link (at `origin`) is in the answer, once, and e-mailed when SMTP is set. The answer is
   * the same whether or not the email has an account: the link page tells its holder.
   */
  async invite(
    actor: TeamActor,
    organisationId: string,
    email: string,
    role: Role,
    origin: string,
  ): Promise<NewInvitationData> {
    this.allow(actor, role);
    this.maySend(actor, organisationId);
    const now = this.deps.clock();
    const replaced = this.deps.accounts.current.invitations.find(
      (i) => i.organisation_id === organisationId && i.email === email && isLive(i, now),
    );
    if (replaced) this.allow(actor, replaced.role);
    await this.countMail(actor, organisationId, email);
    const { token, hash } = newLinkToken();
    const invitation: Invitation = {
      id: randomUUID(),
      organisation_id: organisationId,
      email,
      role,
      token_hash: hash,
      invited_by: actor.member ? actor.email : null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITATION_DAYS * DAY_MS).toISOString(),
    };
    // Its audit event in the same write: an invitation is never made without it (mustRecord).
    const audited = () => mustRecord(this.deps.audit, this.event(actor, 'invitation_created', invitation));
    await this.deps.accounts.links.addInvitation(invitation, now, {
      // Decided again in the write: an owner's invitation made meanwhile is not the admin's to replace.
      mayReplace: (same) => this.allow(actor, same.role),
      alongside: audited,
    });
    return this.handOver(invitation, token, origin);
  }

  /** A new link for a pending invitation, valid INVITATION_DAYS from now; the old link stops working. */
  async resend(actor: TeamActor, organisationId: string, id: string, origin: string): Promise<NewInvitationData> {
    const pending = this.pending(organisationId, id);
    this.allow(actor, pending.role);
    this.maySend(actor, organisationId);
    await this.countMail(actor, organisationId, pending.email);
    const now = this.deps.clock();
    const { token, hash } = newLinkToken();
    const renewed = await this.deps.accounts.links.renewInvitation(
      organisationId,
      id,
      { token_hash: hash, expires_at: new Date(now.getTime() + INVITATION_DAYS * DAY_MS).toISOString() },
      now,
      (renewed) => mustRecord(this.deps.audit, this.event(actor, 'invitation_resent', renewed)),
    );
    return this.handOver(renewed, token, origin);
  }

  /** Revokes a pending invitation: its link stops working. */
  async revoke(actor: TeamActor, organisationId: string, id: string): Promise<void> {
    this.allow(actor, this.pending(organisationId, id).role);
    const now = this.deps.clock();
    await this.deps.accounts.links.revokeInvitation(organisationId, id, now, (revoked) =>
      mustRecord(this.deps.audit, this.event(actor, 'invitation_revoked', revoked)),
    );
  }

  /**
   * Revokes the pending invitations `senderEmail` sent in the organisation that its role `role` (null: removed) no
   * longer allows, each audited with `reason` and `actor` (who removed or demoted them). Returns how many.
   */
  async revokeSentBy(
    actor: TeamActor,
    organisationId: string,
    senderEmail: string,
    role: Role | null,
    reason: RevokeReason,
  ): Promise<number> {
    const now = this.deps.clock();
    const orphaned = (i: Invitation) =>
      i.organisation_id === organisationId && i.invited_by === senderEmail && !(role && mayAssign(role, i.role));
    if (!this.deps.accounts.current.invitations.some(orphaned)) return 0;
    const revoked = await this.deps.accounts.links.revokeInvitations(orphaned, now, (gone) =>
      mustRecord(this.deps.audit, ...gone.map((i) => this.event(actor, 'invitation_revoked', i, reason))),
    );
    return revoked.length;
  }

  /** What a link invites to, before its holder chooses a password. */
  lookup(token: string): InvitationPreview {
    const invitation = this.usable(token);
    const organisation = this.deps.accounts.organisation(invitation.organisation_id)!;
    return {
      organisation: organisation.name,
      email: invitation.email,
      role: invitation.role,
      expires_at: invitation.expires_at,
    };
  }

  /**
   * Accepts the invitation of `token`: its email becomes an account with `password`, a member of the organisation
   * with the invited role, and the invitation (with any other organisation's for the same email, which could no
   * longer be accepted) is gone, all in one update. Returns the new account and membership.
   */
  async accept(token: string, password: string, ip: string): Promise<{ account: Account; member: Member }> {
    // Checked before the password is hashed: a dead link costs no scrypt.
    this.usable(token);
    const password_hash = await hashPassword(password);
    const now = this.deps.clock();
    const accepted = await this.deps.accounts.links.acceptInvitation(token, password_hash, now, {
      inviterStands,
      alongside: ({ account, member, invitation }) => {
        const self = accepter(account, member, ip);
        return alongsideAll(
          mustRecord(
            this.deps.audit,
            this.event(self, 'invitation_accepted', invitation),
            this.event(self, 'member_added', invitation),
          ),
          this.deps.sso?.departures.rejoined(member.organisation_id, account.email),
        );
      },
    });
    const { account, member } = accepted;
    return { account: this.deps.accounts.findById(account.id) ?? account, member };
  }

  /** Drops expired invitations; returns how many (the purge job's). */
  purgeExpired(): Promise<number> {
    return this.deps.accounts.links.purgeExpired('invitations', this.deps.clock());
  }

  /**
   * The live invitation of `token` whose sender still may send it, or invalid_link; account_exists when its email has
   * an account (made meanwhile, or already when it was sent).
   */
  private usable(token: string): Invitation {
    const invitation = findByTokenIn(this.deps.accounts.current.invitations, token);
    if (!invitation || !isLive(invitation, this.deps.clock())) throw new ContractError('invalid_link');
    if (!this.deps.accounts.organisation(invitation.organisation_id)) throw new ContractError('invalid_link');
    const { accounts } = this.deps;
    const membershipOf = (email: string) => {
      const account = accounts.findByEmail(email);
      return account && accounts.membershipOf(account.id);
    };
    if (!inviterStands(invitation, membershipOf)) throw new ContractError('invalid_link');
    if (this.deps.accounts.findByEmail(invitation.email)) throw new ContractError('account_exists');
    return invitation;
  }

  private pending(organisationId: string, id: string): Invitation {
    const now = this.deps.clock();
    const invitation = this.deps.accounts.current.invitations.find(
      (i) => i.id === id && i.organisation_id === organisationId && isLive(i, now),
    );
    if (!invitation) throw new ContractError('invitation_not_found');
    return invitation;
  }

  private allow(actor: TeamActor, role: Role): void {
    if (actor.member && !mayAssign(actor.member.role, role)) throw new ContractError('forbidden_role');
  }

  /**
   * Whether the actor may have the service send an invitation: a member whose address is proved (when mail is sent
   * at all: without SMTP no address can be proved, and nothing is sent in anyone's name), of an organisation whose
   * subscription is active (when billing is on). The operator always may.
   */
  private maySend(actor: TeamActor, organisationId: string): void {
    if (!actor.member) return;
    if (this.deps.mailer.enabled && !this.deps.accounts.findById(actor.member.account_id)?.email_verified_at) {
      throw new ContractError('email_unverified');
    }
    const subscription = this.deps.accounts.subscriptionOfOrganisation(organisationId);
    if (this.deps.billing && !isSubscriptionActive(subscription, this.deps.clock())) {
      throw new ContractError('subscription_required');
    }
  }

  /** One mail to `email` on the organisation's account (429 mail_limited beyond); the operator's are not counted. */
  private async countMail(actor: TeamActor, organisationId: string, email: string): Promise<void> {
    if (actor.member) await this.deps.mailLimit.require(organisationId, email);
  }

  /** The answer to whoever invited: the link, this once, and whether it was e-mailed too. */
  private async handOver(invitation: Invitation, token: string, origin: string): Promise<NewInvitationData> {
    const link = invitationLink(origin, token);
    const emailed =
      this.deps.mailer.enabled &&
      (await this.deps.mailer.send(
        invitationMail({
          to: invitation.email,
          invitedBy: invitation.invited_by,
          role: invitation.role,
          link,
          expiresAt: invitation.expires_at,
        }),
        'invitation',
      ));
    return { invitation: view(invitation), link, emailed };
  }

  /** The audit event of `invitation` (recorded with its write: mustRecord). */
  private event(actor: TeamActor, event: AuditEventType, invitation: Invitation, reason?: RevokeReason): AuditInput {
    return {
      event,
      ...actor.by,
      account_id: actor.member?.account_id ?? null,
      email: actor.member ? actor.email : null,
      organisation_id: invitation.organisation_id,
      member_email: invitation.email,
      role: invitation.role,
      reason,
    };
  }
}

/** Who accepts an invitation, for its audit events: the new member, from the client's address. */
function accepter(account: Account, member: Member, ip: string): TeamActor {
  return { member, email: account.email, by: { source: 'web', ip } };
}
