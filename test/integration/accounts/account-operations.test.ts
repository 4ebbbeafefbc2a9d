import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PENDING_INVITATIONS } from '../../../shared/api/invitations';
import type { Role } from '../../../shared/api/team';
import { AccountError } from '../../../server/accounts/account-service';
import type { Invitation } from '../../../server/accounts/account-records';
import { newLinkToken } from '../../../server/accounts/link-tokens';
import { mustRecord, type AuditInput } from '../../../server/audit/audit-log';
import { ContractError } from '../../../server/contract-error';
import { accountsOnStorage, type AccountsOnStorage } from '../../helpers/service-storage';

/**
 * The accounts document's operations, the only writes of it, on the backend under test, without HTTP: each rule
 * fails here, where it lives (the HTTP tests of team, invitations and sign-up answer for the routes).
 */
const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;

let world: AccountsOnStorage;
beforeAll(async () => {
  world = await accountsOnStorage();
});
afterAll(() => world.close());

let practices = 0;
/** A new practice: its owner, and members with `roles`. */
async function practice(...roles: Role[]) {
  const n = ++practices;
  const owner = await world.accounts.createAccount(`owner${n}@clinic.example`, PASSWORD, { organisationName: `P${n}` });
  const organisationId = world.accounts.membershipOf(owner.id)!.organisation_id;
  const members = [];
  for (const [i, role] of roles.entries()) {
    members.push(
      await world.accounts.createAccount(`${role}${i}.${n}@clinic.example`, PASSWORD, { organisationId, role }),
    );
  }
  return { owner, organisationId, members };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );
const event = (organisationId: string, name: string): AuditInput => ({
  event: 'member_role_changed',
  source: 'admin',
  account_id: null,
  email: null,
  organisation_id: organisationId,
  member_email: name,
});
const auditedFor = async (organisationId: string) =>
  (await world.audit.read({ organisationId })).map((e) => e.member_email);

function invitation(organisationId: string, email: string, role: Role, now: Date, invitedBy: string | null = null) {
  const { token, hash } = newLinkToken();
  const record: Invitation = {
    id: `inv-${hash.slice(0, 12)}`,
    organisation_id: organisationId,
    email,
    role,
    token_hash: hash,
    invited_by: invitedBy,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 7 * DAY).toISOString(),
  };
  return { token, record };
}

describe('members: roles and removal', () => {
  it('the last owner neither steps down nor is removed; the refusal writes nothing and audits nothing', async () => {
    const { owner, organisationId } = await practice('member');
    const alongside = () => mustRecord(world.audit, event(organisationId, 'never'));
    for (const attempt of [
      world.accounts.setRole(organisationId, owner.id, 'admin', { alongside }),
      world.accounts.removeMember(organisationId, owner.id, { alongside }),
    ]) {
      const err = await refusal(attempt);
      expect(err).toBeInstanceOf(ContractError);
      expect((err as ContractError).code).toBe('last_owner');
    }
    expect(world.accounts.membershipOf(owner.id)?.role).toBe('owner');
    expect(await auditedFor(organisationId)).toEqual([]);
  });

  it('the rule passed in is judged in the write, on the roles then; its refusal writes nothing', async () => {
    const { organisationId, members } = await practice('admin', 'member');
    const [admin, member] = [members[0]!, members[1]!];
    const seen: Role[] = [];
    const onlyMembersChange = (target: { role: Role }) => {
      seen.push(target.role);
      if (target.role !== 'member') throw new ContractError('forbidden_role');
    };
    // Promoted meanwhile: the rule meets the role the write finds, not the one read before.
    await world.accounts.setRole(organisationId, member.id, 'admin');
    const err = await refusal(world.accounts.removeMember(organisationId, member.id, { rule: onlyMembersChange }));
    expect((err as ContractError).code).toBe('forbidden_role');
    expect(seen).toEqual(['admin']);
    expect(world.accounts.membershipOf(member.id)?.role).toBe('admin');
    const changed = await world.accounts.setRole(organisationId, admin.id, 'member', {
      alongside: ({ account }) => mustRecord(world.audit, event(organisationId, account.email)),
    });
    expect([changed.before.role, changed.member.role]).toEqual(['admin', 'member']);
    expect(await auditedFor(organisationId)).toEqual([changed.account.email]);
  });

  it('a removed member takes their account and their reset and verification links with them', async () => {
    const { organisationId, members } = await practice('member');
    const member = members[0]!;
    const now = new Date();
    const link = { account_id: member.id, created_at: now.toISOString() };
    const expires_at = new Date(now.getTime() + DAY).toISOString();
    await world.accounts.links.issuePasswordReset(
      { ...link, id: 'r1', token_hash: newLinkToken().hash, expires_at },
      now,
    );
    await world.accounts.links.issueEmailVerification(
      { ...link, id: 'v1', token_hash: newLinkToken().hash, expires_at },
      now,
    );
    await world.accounts.removeMember(organisationId, member.id);
    expect(world.accounts.findById(member.id)).toBeUndefined();
    expect(world.accounts.current.password_resets.filter((r) => r.account_id === member.id)).toEqual([]);
    expect(world.accounts.current.email_verifications.filter((r) => r.account_id === member.id)).toEqual([]);
  });

  it('an address taken is the contract’s account_exists naming it; a short password weak_password; a bad address the CLI’s', async () => {
    const { owner } = await practice();
    const taken = await refusal(world.accounts.createAccount(owner.email.toUpperCase(), PASSWORD));
    expect(taken).toBeInstanceOf(ContractError);
    expect(taken).toMatchObject({ code: 'account_exists', message: `An account for ${owner.email} already exists` });
    expect(await refusal(world.accounts.createAccount('new@clinic.example', 'short'))).toMatchObject({
      code: 'weak_password',
      status: 400,
    });
    const bad = await refusal(world.accounts.createAccount('not-an-email', PASSWORD));
    expect(bad).toBeInstanceOf(AccountError);
    expect(world.accounts.findByEmail('new@clinic.example')).toBeUndefined();
  });
});

describe('invitations: pending, replaced, accepted', () => {
  it('one pending invitation per address: the new one replaces it unless the rule passed in refuses', async () => {
    const { organisationId } = await practice();
    const now = new Date();
    const first = invitation(organisationId, 'gp@else.example', 'owner', now);
    await world.accounts.links.addInvitation(first.record, now, { mayReplace: () => undefined });
    const second = invitation(organisationId, 'gp@else.example', 'member', now);
    const refused = await refusal(
      world.accounts.links.addInvitation(second.record, now, {
        mayReplace: (pending) => {
          if (pending.role === 'owner') throw new ContractError('forbidden_role');
        },
      }),
    );
    expect((refused as ContractError).code).toBe('forbidden_role');
    const pending = () => world.accounts.current.invitations.filter((i) => i.organisation_id === organisationId);
    expect(pending().map((i) => i.id)).toEqual([first.record.id]);
    await world.accounts.links.addInvitation(second.record, now, { mayReplace: () => undefined });
    expect(pending().map((i) => i.id)).toEqual([second.record.id]);
  });

  it(`an organisation holds at most ${MAX_PENDING_INVITATIONS} pending invitations; expired ones do not count`, async () => {
    const { organisationId } = await practice();
    const now = new Date();
    const long = new Date(now.getTime() - 8 * DAY);
    // One expired already (made 8 days ago): dropped by the next write, not counted.
    await world.accounts.links.addInvitation(invitation(organisationId, 'old@x.example', 'member', long).record, long, {
      mayReplace: () => undefined,
    });
    for (let i = 0; i < MAX_PENDING_INVITATIONS; i++) {
      const { record } = invitation(organisationId, `p${i}@x.example`, 'member', now);
      await world.accounts.links.addInvitation(record, now, { mayReplace: () => undefined });
    }
    const over = invitation(organisationId, 'one-more@x.example', 'member', now);
    const err = await refusal(world.accounts.links.addInvitation(over.record, now, { mayReplace: () => undefined }));
    expect((err as ContractError).code).toBe('too_many_invitations');
    const pending = world.accounts.current.invitations.filter((i) => i.organisation_id === organisationId);
    expect(pending).toHaveLength(MAX_PENDING_INVITATIONS);
    expect(pending.some((i) => i.email === 'old@x.example')).toBe(false);
  }, 60_000);

  it('accepting makes a verified member with the role, once; a sender who may no longer send it makes it invalid', async () => {
    const { organisationId, owner } = await practice();
    const now = new Date();
    const sent = invitation(organisationId, 'nurse@clinic.example', 'admin', now, owner.email);
    const other = invitation(organisationId, 'locum@clinic.example', 'member', now, owner.email);
    for (const { record } of [sent, other]) {
      await world.accounts.links.addInvitation(record, now, { mayReplace: () => undefined });
    }
    const stands = (invitation: Invitation, membershipOf: (email: string) => { role: Role } | undefined) =>
      membershipOf(invitation.invited_by!)?.role === 'owner';
    const accepted = await world.accounts.links.acceptInvitation(sent.token, 'hash', now, { inviterStands: stands });
    expect(accepted.member).toMatchObject({ organisation_id: organisationId, role: 'admin' });
    expect(world.accounts.findById(accepted.account.id)?.email_verified_at).toBe(now.toISOString());
    const again = await refusal(
      world.accounts.links.acceptInvitation(sent.token, 'hash', now, { inviterStands: stands }),
    );
    expect((again as ContractError).code).toBe('invalid_link');
    const orphaned = await refusal(
      world.accounts.links.acceptInvitation(other.token, 'hash', now, { inviterStands: () => false }),
    );
    expect((orphaned as ContractError).code).toBe('invalid_link');
    expect(world.accounts.findByEmail('locum@clinic.example')).toBeUndefined();
  });

  it('revoking by a rule removes exactly what it picks; purging drops only the expired', async () => {
    const { organisationId } = await practice();
    const now = new Date();
    const then = new Date(now.getTime() - 8 * DAY);
    const keep = invitation(organisationId, 'keep@x.example', 'member', now, 'a@x.example');
    const drop = invitation(organisationId, 'drop@x.example', 'admin', now, 'a@x.example');
    const stale = invitation(organisationId, 'stale@x.example', 'member', then);
    // Each write drops what has expired at its time: the stale one is added last, at its own.
    for (const [{ record }, at] of [
      [keep, now],
      [drop, now],
      [stale, then],
    ] as const) {
      await world.accounts.links.addInvitation(record, at, { mayReplace: () => undefined });
    }
    const gone = await world.accounts.links.revokeInvitations((i) => i.id === drop.record.id, then);
    expect(gone.map((i) => i.id)).toEqual([drop.record.id]);
    expect(await world.accounts.links.purgeExpired('invitations', now)).toBe(1);
    expect(await world.accounts.links.purgeExpired('invitations', now)).toBe(0);
    const left = world.accounts.current.invitations.filter((i) => i.organisation_id === organisationId);
    expect(left.map((i) => i.id)).toEqual([keep.record.id]);
  });
});

describe('password resets and e-mail verification', () => {
  it('a reset link sets the password once, proves the address and takes the verification link with it', async () => {
    const { owner } = await practice();
    const now = new Date();
    const reset = newLinkToken();
    const expires_at = new Date(now.getTime() + DAY).toISOString();
    const common = { account_id: owner.id, created_at: now.toISOString(), expires_at };
    await world.accounts.links.issuePasswordReset({ ...common, id: 'reset', token_hash: reset.hash }, now);
    expect(
      await world.accounts.links.issueEmailVerification({ ...common, id: 'v', token_hash: newLinkToken().hash }, now),
    ).toBeNull();
    const set = await world.accounts.links.resetPassword(reset.token, 'new-hash', now);
    expect(set.accountId).toBe(owner.id);
    const account = world.accounts.findById(owner.id)!;
    expect([account.password_hash, account.email_verified_at]).toEqual(['new-hash', now.toISOString()]);
    expect(world.accounts.current.email_verifications.some((r) => r.account_id === owner.id)).toBe(false);
    const again = await refusal(world.accounts.links.resetPassword(reset.token, 'other', now));
    expect((again as ContractError).code).toBe('invalid_link');
    // Proved now: a new verification link is not stored, and the answer says since when.
    const link = { ...common, id: 'v2', token_hash: newLinkToken().hash };
    expect(await world.accounts.links.issueEmailVerification(link, now)).toBe(now.toISOString());
  });
});
