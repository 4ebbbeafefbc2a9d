import { randomUUID } from 'node:crypto';
import { MAX_PENDING_INVITATIONS } from '../../shared/api/invitations';
import { ContractError } from '../contract-error';
import type { Alongside } from '../storage/document-store';
import type { Account, AccountsFile, AccountStore, EmailVerification, Invitation, Member } from './account-records';
import { findByToken, isLive, liveOnly } from './link-tokens';

/** The link tables of the accounts document. */
export type LinkTable = 'invitations' | 'password_resets' | 'email_verifications';

/** The membership of an address in the document as a write finds it (the rule an acceptance is judged by reads it). */
export type MembershipByEmail = (email: string) => Member | undefined;

/** An invitation used: the account and membership it made, and the invitation itself (for its audit events). */
export interface AcceptedInvitation {
  account: Account;
  member: Member;
  invitation: Invitation;
}

/** A password set through a reset link: whose, for its audit event. */
export interface PasswordSet {
  accountId: string;
  email: string;
  organisationId: string;
  role: Member['role'];
}

/**
 * The single-use links of the accounts document — invitations, password resets, e-mail verifications — as the
 * operations the invitations, password-reset and sign-up services call: each one update of the document, which also
 * drops the table's expired links. A rule that depends on who holds which role is passed in and judged inside the
 * write, on the document as it is then; a link that is not (or no longer) there is refused with the contract's error.
 */
export class AccountLinks {
  constructor(private readonly store: AccountStore) {}

  /**
   * Adds `invitation`, replacing the pending one of its email in its organisation, which `mayReplace` may refuse (by
   * throwing): judged in the write, so an owner's invitation made meanwhile is not an admin's to replace. An
   * organisation has at most MAX_PENDING_INVITATIONS pending.
   */
  addInvitation(
    invitation: Invitation,
    now: Date,
    { mayReplace, alongside }: { mayReplace: (pending: Invitation) => void; alongside?: Alongside<void> },
  ): Promise<void> {
    const { organisation_id, email } = invitation;
    return this.store.update((data) => {
      data.invitations = liveOnly(data.invitations, now);
      const same = data.invitations.find((i) => i.organisation_id === organisation_id && i.email === email);
      if (same) mayReplace(same);
      data.invitations = data.invitations.filter((i) => i !== same);
      const pending = data.invitations.filter((i) => i.organisation_id === organisation_id).length;
      if (pending >= MAX_PENDING_INVITATIONS) throw new ContractError('too_many_invitations');
      data.invitations.push(invitation);
    }, alongside);
  }

  /** Gives the pending invitation `id` of the organisation a new link (its hash) and expiry; returns it as it is now. */
  renewInvitation(
    organisationId: string,
    id: string,
    renewal: Pick<Invitation, 'token_hash' | 'expires_at'>,
    now: Date,
    alongside?: Alongside<Invitation>,
  ): Promise<Invitation> {
    return this.store.update((data) => {
      data.invitations = liveOnly(data.invitations, now);
      const invitation = data.invitations.find((i) => i.id === id && i.organisation_id === organisationId);
      if (!invitation) throw new ContractError('invitation_not_found');
      Object.assign(invitation, renewal);
      return { ...invitation };
    }, alongside);
  }

  /** Removes the pending invitation `id` of the organisation (its link stops working); returns it. */
  revokeInvitation(
    organisationId: string,
    id: string,
    now: Date,
    alongside?: Alongside<Invitation>,
  ): Promise<Invitation> {
    return this.store.update((data) => {
      const invitation = data.invitations.find((i) => i.id === id && i.organisation_id === organisationId);
      if (!invitation || !isLive(invitation, now)) throw new ContractError('invitation_not_found');
      data.invitations = liveOnly(data.invitations, now).filter((i) => i.id !== id);
      return invitation;
    }, alongside);
  }

  /** Removes every pending invitation `which` picks (in the write's data); returns them. */
  revokeInvitations(
    which: (invitation: Invitation) => boolean,
    now: Date,
    alongside?: Alongside<Invitation[]>,
  ): Promise<Invitation[]> {
    return this.store.update((data) => {
      data.invitations = liveOnly(data.invitations, now);
      const gone = data.invitations.filter(which);
      data.invitations = data.invitations.filter((i) => !which(i));
      return gone;
    }, alongside);
  }

  /**
   * Uses the invitation of `token`: its email becomes an account (its address proved: the link came by mail to it)
   * with `passwordHash`, a member of the organisation with the invited role, and every invitation of that email is
   * gone. `inviterStands` (judged in the write, on the memberships then) says whether its sender still may send it;
   * a missing, expired or orphaned invitation is invalid_link, an email with an account account_exists.
   */
  acceptInvitation(
    token: string,
    passwordHash: string,
    now: Date,
    {
      inviterStands,
      alongside,
    }: {
      inviterStands: (invitation: Invitation, membershipOf: MembershipByEmail) => boolean;
      alongside?: Alongside<AcceptedInvitation>;
    },
  ): Promise<AcceptedInvitation> {
    return this.store.update((data) => {
      data.invitations = liveOnly(data.invitations, now);
      const invitation = findByToken(data.invitations, token);
      if (
        !invitation ||
        !data.organisations.some((o) => o.id === invitation.organisation_id) ||
        !inviterStands(invitation, membershipIn(data))
      ) {
        throw new ContractError('invalid_link');
      }
      if (data.accounts.some((a) => a.email === invitation.email)) throw new ContractError('account_exists');
      const at = now.toISOString();
      const account: Account = {
        id: randomUUID(),
        email: invitation.email,
        password_hash: passwordHash,
        created_at: at,
        email_verified_at: at,
      };
      const member: Member = {
        organisation_id: invitation.organisation_id,
        account_id: account.id,
        role: invitation.role,
        created_at: at,
      };
      data.accounts.push(account);
      data.members.push(member);
      data.invitations = data.invitations.filter((i) => i.email !== invitation.email);
      return { account, member, invitation };
    }, alongside);
  }

  /** `reset` as its account's one live reset link (any other it had dropped); member_not_found without the account. */
  async issuePasswordReset(reset: AccountsFile['password_resets'][number], now: Date): Promise<void> {
    await this.store.update((data) => {
      if (!data.accounts.some((a) => a.id === reset.account_id)) throw new ContractError('member_not_found');
      data.password_resets = liveOnly(data.password_resets, now).filter((r) => r.account_id !== reset.account_id);
      data.password_resets.push(reset);
    });
  }

  /**
   * Uses the reset link of `token`: its account's password becomes `passwordHash` and its address is proved (the
   * link came by mail to it); its reset and verification links are gone. invalid_link for a link that is not there.
   */
  resetPassword(
    token: string,
    passwordHash: string,
    now: Date,
    alongside?: Alongside<PasswordSet>,
  ): Promise<PasswordSet> {
    return this.store.update((data) => {
      data.password_resets = liveOnly(data.password_resets, now);
      const reset = findByToken(data.password_resets, token);
      const account = reset && data.accounts.find((a) => a.id === reset.account_id);
      const member = account && data.members.find((m) => m.account_id === account.id);
      if (!account || !member) throw new ContractError('invalid_link');
      account.password_hash = passwordHash;
      // A verification link still pending has nothing left to do.
      account.email_verified_at ??= now.toISOString();
      data.email_verifications = data.email_verifications.filter((r) => r.account_id !== account.id);
      data.password_resets = data.password_resets.filter((r) => r.account_id !== account.id);
      return { accountId: account.id, email: account.email, organisationId: member.organisation_id, role: member.role };
    }, alongside);
  }

  /**
   * `record` as its account's one live verification link, unless the address is proved already: then nothing is
   * written and the answer is when it was (null when the link was stored). invalid_link without the account.
   */
  issueEmailVerification(record: EmailVerification, now: Date): Promise<string | null> {
    return this.store.update((data) => {
      const found = data.accounts.find((a) => a.id === record.account_id);
      if (!found) throw new ContractError('invalid_link');
      if (found.email_verified_at) return found.email_verified_at;
      replaceVerification(data, record, now);
      return null;
    });
  }

  /**
   * Uses the verification link of `token`: its account's address is proved (the first proof's time is kept), the
   * link removed. Returns the account and its organisation. invalid_link for a link that is not there.
   */
  verifyEmail(
    token: string,
    now: Date,
    alongside?: Alongside<{ account: Account; organisationId: string | undefined }>,
  ): Promise<{ account: Account; organisationId: string | undefined }> {
    return this.store.update((data) => {
      data.email_verifications = liveOnly(data.email_verifications, now);
      const link = findByToken(data.email_verifications, token);
      const found = link && data.accounts.find((a) => a.id === link.account_id);
      if (!found) throw new ContractError('invalid_link');
      found.email_verified_at ??= now.toISOString();
      data.email_verifications = data.email_verifications.filter((r) => r.account_id !== found.id);
      const member = data.members.find((m) => m.account_id === found.id);
      return { account: { ...found }, organisationId: member?.organisation_id };
    }, alongside);
  }

  /**
   * Drops the expired links of `table` (the purge job's; every write of a table drops them too); returns how many. No
   * write when none has expired.
   */
  async purgeExpired(table: LinkTable, now: Date): Promise<number> {
    if (this.store.current[table].every((r) => isLive(r, now))) return 0;
    return this.store.update((data) => {
      const before = data[table].length;
      (data[table] as AccountsFile[LinkTable][number][]) = liveOnly<AccountsFile[LinkTable][number]>(data[table], now);
      return before - data[table].length;
    });
  }
}

/** `record` as its account's one live verification link (any other it had, and every expired one, dropped). */
export function replaceVerification(data: AccountsFile, record: EmailVerification, now: Date): void {
  data.email_verifications = liveOnly(data.email_verifications, now).filter((r) => r.account_id !== record.account_id);
  data.email_verifications.push(record);
}

/** The membership of `email` in the accounts document `data` (a draft: read whole by the write anyway). */
const membershipIn =
  (data: AccountsFile): MembershipByEmail =>
  (email) => {
    const account = data.accounts.find((a) => a.email === email);
    return account && data.members.find((m) => m.account_id === account.id);
  };
