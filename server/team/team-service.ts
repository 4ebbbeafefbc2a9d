import { mayAssign, type Role, type TeamData } from '../../shared/api/team';
import { AccountError, type AccountService } from '../accounts/account-service';
import type { Member } from '../accounts/account-store';
import type { AuditActor, AuditRecorder } from '../audit/audit-log';
import type { Logger } from '../logger';
import type { SessionStore } from '../sessions/session-store';

export type TeamErrorCode = 'forbidden_role' | 'member_not_found' | 'last_owner';

export class TeamError extends Error {
  constructor(
    readonly code: TeamErrorCode,
    message: string = code,
  ) {
    super(message);
    this.name = 'TeamError';
  }
}

/**
 * Who changes the team: a member over HTTP (their role bounds what they may do), or the operator with the admin CLI
 * (anything but leaving an organisation without an owner). `by` is what the audit trail records.
 */
export type TeamActor = { member: Member; email: string; by: AuditActor } | { member: null; by: AuditActor };

/** The operator with the admin CLI: every power but leaving an organisation without an owner. */
export const OPERATOR: TeamActor = { member: null, by: { source: 'admin' } };

export interface TeamServiceDeps {
  accounts: AccountService;
  audit: AuditRecorder;
  /** Where a removed member's sessions are ended at once; absent (the CLI), they end on their next request. */
  sessions?: SessionStore;
  logger?: Pick<Logger, 'warn'>;
  /** InvitationService: what a removed or demoted member sent and may no longer send is revoked (issue #35). */
  sentInvitations?: {
    revokeSentBy(
      actor: TeamActor,
      organisationId: string,
      senderEmail: string,
      role: Role | null,
      reason: 'inviter_removed' | 'inviter_role_changed',
    ): Promise<number>;
  };
}

/**
 * The team rules over AccountService's data: owners may do anything; admins manage admins and members but never an
 * owner (nor make one); members change nothing; every organisation keeps an owner. Each change is audited with the
 * acting member (or operator), the organisation and the member concerned.
 */
export class TeamService {
  constructor(private readonly deps: TeamServiceDeps) {}

  /** The organisation and its members, in the order they joined. */
  view(organisationId: string): TeamData {
    const organisation = this.deps.accounts.organisation(organisationId);
    if (!organisation) throw new TeamError('member_not_found', `No organisation ${organisationId}`);
    return {
      organisation: { id: organisation.id, name: organisation.name },
      members: this.deps.accounts.membersOf(organisationId).map(({ account, member }) => ({
        account_id: account.id,
        email: account.email,
        role: member.role,
        joined_at: member.created_at,
      })),
    };
  }

  /**
   * Creates the account of a new member (the operator's `add-member`). An accepted invitation does the same in one
   * update with using the invitation up (InvitationService.accept), and is audited alike.
   */
  async add(actor: TeamActor, organisationId: string, email: string, password: string, role: Role): Promise<string> {
    this.allow(actor, role);
    const account = await this.deps.accounts.createAccount(email, password, { organisationId, role });
    await this.record(actor, 'member_added', organisationId, account.email, role);
    return account.id;
  }

  async changeRole(actor: TeamActor, organisationId: string, accountId: string, role: Role): Promise<void> {
    const target = this.memberOf(organisationId, accountId);
    this.allow(actor, target.member.role);
    this.allow(actor, role);
    if (target.member.role === role) return;
    await this.guarded(() => this.deps.accounts.setRole(organisationId, accountId, role));
    await this.record(actor, 'member_role_changed', organisationId, target.account.email, role);
    await this.deps.sentInvitations?.revokeSentBy(
      actor,
      organisationId,
      target.account.email,
      role,
      'inviter_role_changed',
    );
  }

  /** Removes the member and their account, and ends their sessions on every instance. */
  async remove(actor: TeamActor, organisationId: string, accountId: string): Promise<void> {
    const target = this.memberOf(organisationId, accountId);
    this.allow(actor, target.member.role);
    await this.guarded(() => this.deps.accounts.removeMember(organisationId, accountId));
    // Already refused everywhere (no account, no session: require-session.ts); this also frees what they held.
    await this.deps.sessions?.destroyAllFor(accountId).catch((err: unknown) => {
      this.deps.logger?.warn({ err }, "could not delete a removed member's sessions (they are refused anyway)");
    });
    await this.record(actor, 'member_removed', organisationId, target.account.email, target.member.role);
    await this.deps.sentInvitations?.revokeSentBy(actor, organisationId, target.account.email, null, 'inviter_removed');
  }

  private memberOf(organisationId: string, accountId: string) {
    const found = this.deps.accounts.membersOf(organisationId).find((m) => m.account.id === accountId);
    if (!found) throw new TeamError('member_not_found', 'No such member in this organisation');
    return found;
  }

  private allow(actor: TeamActor, role: Role): void {
    if (actor.member && !mayAssign(actor.member.role, role)) throw new TeamError('forbidden_role');
  }

  private async guarded<T>(change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } catch (err) {
      if (err instanceof AccountError && err.code === 'last_owner') throw new TeamError('last_owner', err.message);
      if (err instanceof AccountError && err.code === 'member_not_found') throw new TeamError('member_not_found');
      throw err;
    }
  }

  private async record(
    actor: TeamActor,
    event: 'member_added' | 'member_role_changed' | 'member_removed',
    organisationId: string,
    memberEmail: string,
    role: Role,
  ): Promise<void> {
    await this.deps.audit.record({
      event,
      ...actor.by,
      account_id: actor.member?.account_id ?? null,
      email: actor.member ? actor.email : null,
      organisation_id: organisationId,
      member_email: memberEmail,
      role,
    });
  }
}
