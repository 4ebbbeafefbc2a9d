import { mayAssign, type Role, type TeamData } from '../../shared/api/team';
import type { AccountService } from '../accounts/account-service';
import type { AccountsFile, Member } from '../accounts/account-records';
import { mustRecord, type AuditActor, type AuditRecorder } from '../audit/audit-log';
import { ContractError } from '../contract-error';
import type { Logger } from '../logger';
import type { SessionStore } from '../sessions/session-store';
import type { AlongsideWrite } from '../storage/document-store';
import { alongsideAll } from '../storage/alongside-all';

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
  /** Single sign-on's record of who was removed (refused by it until invited again), written with the removal. */
  sso?: { departures: { departed(organisationId: string, email: string): AlongsideWrite } };
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
    if (!organisation) throw new ContractError('member_not_found');
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
    this.allow(actor.member?.role ?? null, role);
    const account = await this.deps.accounts.createAccount(email, password, { organisationId, role });
    await this.record(actor, 'member_added', organisationId, account.email, role);
    return account.id;
  }

  /**
   * Gives the member the role. Who may is judged inside the write, on the roles the actor and the member have then: an
   * admin's change that meets an owner's promotion of the same member is refused, not applied to the new owner.
   */
  async changeRole(actor: TeamActor, organisationId: string, accountId: string, role: Role): Promise<void> {
    const { account } = await this.deps.accounts.setRole(organisationId, accountId, role, {
      rule: (target, data) => {
        const acting = this.roleNow(actor, organisationId, data);
        this.allow(acting, target.role);
        this.allow(acting, role);
      },
      alongside: ({ account }) =>
        mustRecord(this.deps.audit, this.event(actor, 'member_role_changed', organisationId, account.email, role)),
    });
    await this.deps.sentInvitations?.revokeSentBy(actor, organisationId, account.email, role, 'inviter_role_changed');
  }

  /** Removes the member and their account, and ends their sessions on every instance. */
  async remove(actor: TeamActor, organisationId: string, accountId: string): Promise<void> {
    const { account } = await this.deps.accounts.removeMember(organisationId, accountId, {
      rule: (target, data) => this.allow(this.roleNow(actor, organisationId, data), target.role),
      alongside: ({ account, member }) =>
        alongsideAll(
          mustRecord(this.deps.audit, this.event(actor, 'member_removed', organisationId, account.email, member.role)),
          this.deps.sso?.departures.departed(organisationId, account.email),
        ),
    });
    // Already refused everywhere (no account, no session: require-session.ts); this also frees what they held.
    await this.deps.sessions?.destroyAllFor(accountId).catch((err: unknown) => {
      this.deps.logger?.warn({ err }, "could not delete a removed member's sessions (they are refused anyway)");
    });
    await this.deps.sentInvitations?.revokeSentBy(actor, organisationId, account.email, null, 'inviter_removed');
  }

  /**
   * Renames the organisation: owners (and the operator) only, judged inside the write on the role the actor has then,
   * as every team change is; audited with the name before and after.
   */
  async rename(actor: TeamActor, organisationId: string, name: string): Promise<void> {
    let before = '';
    await this.deps.accounts.renameOrganisation(organisationId, name, {
      rule: (organisation, data) => {
        const acting = this.roleNow(actor, organisationId, data);
        if (acting !== null && acting !== 'owner') throw new ContractError('forbidden_role');
        before = organisation.name;
      },
      alongside: (organisation) =>
        mustRecord(this.deps.audit, {
          event: 'organisation_renamed',
          ...this.actorFields(actor),
          organisation_id: organisationId,
          previous_name: before,
          organisation_name: organisation.name,
        }),
    });
  }

  /**
   * The actor's role in `data` (the write's own copy), not the one their session read: demoted or removed meanwhile,
   * they act with what is left. null for the operator.
   */
  private roleNow(actor: TeamActor, organisationId: string, data: AccountsFile): Role | null {
    if (!actor.member) return null;
    const { account_id } = actor.member;
    const now = data.members.find((m) => m.account_id === account_id && m.organisation_id === organisationId);
    if (!now) throw new ContractError('forbidden_role');
    return now.role;
  }

  /** Refuses what `acting` (null: the operator, who may) may not give or take: mayAssign's rule. */
  private allow(acting: Role | null, role: Role): void {
    if (acting !== null && !mayAssign(acting, role)) throw new ContractError('forbidden_role');
  }

  private async record(
    actor: TeamActor,
    event: TeamEvent,
    organisationId: string,
    memberEmail: string,
    role: Role,
  ): Promise<void> {
    await this.deps.audit.record(this.event(actor, event, organisationId, memberEmail, role));
  }

  /** Who acted, as an audit event names them. */
  private actorFields(actor: TeamActor) {
    return { ...actor.by, account_id: actor.member?.account_id ?? null, email: actor.member ? actor.email : null };
  }

  private event(actor: TeamActor, event: TeamEvent, organisationId: string, memberEmail: string, role: Role) {
    return {
      event,
      ...this.actorFields(actor),
      organisation_id: organisationId,
      member_email: memberEmail,
      role,
    };
  }
}

type TeamEvent = 'member_added' | 'member_role_changed' | 'member_removed';
