import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../server/team/team-service';
import { teamServices, type TeamServices } from './team-services';

/** The team rules at the service (no HTTP), on the test's backend: JSON files, or PostgreSQL (integration-shared). */
describe('TeamService', () => {
  let s: TeamServices;
  beforeEach(async () => {
    s = await teamServices();
  });
  afterEach(async () => {
    await s?.close();
  });

  const roleOf = (accountId: string) => s.accounts.membershipOf(accountId)?.role;

  it('keeps an owner: the last one can neither step down nor be removed, by anyone; with a second, they can', async () => {
    const { organisationId, ownerId, ids } = await s.organisation('bondi', 'admin');
    const [adminId] = ids as [string];
    for (const actor of [s.actor(ownerId), OPERATOR]) {
      await expect(s.team.changeRole(actor, organisationId, ownerId, 'admin')).rejects.toMatchObject({
        code: 'last_owner',
        status: 409,
      });
      await expect(s.team.remove(actor, organisationId, ownerId)).rejects.toMatchObject({ code: 'last_owner' });
    }
    expect(roleOf(ownerId)).toBe('owner');
    await s.team.changeRole(s.actor(ownerId), organisationId, adminId, 'owner');
    await s.team.changeRole(s.actor(ownerId), organisationId, ownerId, 'member');
    expect([roleOf(ownerId), roleOf(adminId)]).toEqual(['member', 'owner']);
  });

  it('assigns roles by mayAssign: admins never touch an owner nor make one; members change nothing', async () => {
    const { organisationId, ownerId, ids } = await s.organisation('manly', 'admin', 'member');
    const [adminId, memberId] = ids as [string, string];
    const admin = s.actor(adminId);
    const refusals = [
      s.team.changeRole(admin, organisationId, ownerId, 'member'),
      s.team.remove(admin, organisationId, ownerId),
      s.team.changeRole(admin, organisationId, memberId, 'owner'),
      s.team.changeRole(s.actor(memberId), organisationId, adminId, 'member'),
      s.team.remove(s.actor(memberId), organisationId, adminId),
    ];
    for (const refused of refusals) {
      await expect(refused).rejects.toMatchObject({ code: 'forbidden_role', status: 403 });
    }
    expect([roleOf(ownerId), roleOf(adminId), roleOf(memberId)]).toEqual(['owner', 'admin', 'member']);
    await s.team.changeRole(admin, organisationId, memberId, 'admin');
    expect(roleOf(memberId)).toBe('admin');
    await expect(s.team.changeRole(admin, organisationId, 'no-such-account', 'member')).rejects.toMatchObject({
      code: 'member_not_found',
    });
  });

  it('judges the role the actor has at the write, not the one their session read', async () => {
    const { organisationId, ownerId, ids } = await s.organisation('coogee', 'admin', 'member');
    const [adminId, memberId] = ids as [string, string];
    const staleAdmin = s.actor(adminId);
    await s.team.changeRole(s.actor(ownerId), organisationId, adminId, 'member');
    await expect(s.team.remove(staleAdmin, organisationId, memberId)).rejects.toMatchObject({ code: 'forbidden_role' });
    const staleOwner = s.actor(ownerId);
    await s.team.changeRole(OPERATOR, organisationId, adminId, 'owner');
    await s.team.changeRole(OPERATOR, organisationId, ownerId, 'admin');
    await expect(s.team.rename(staleOwner, organisationId, 'Coogee GP')).rejects.toMatchObject({
      code: 'forbidden_role',
    });
    expect(s.accounts.organisation(organisationId)?.name).toBe('coogee');
  });

  it('renames the organisation for owners only, and audits it with the name before and after', async () => {
    const { organisationId, ownerId, ids } = await s.organisation('bronte', 'admin');
    await expect(s.team.rename(s.actor(ids[0]!), organisationId, 'Admin Was Here')).rejects.toMatchObject({
      code: 'forbidden_role',
    });
    await s.team.rename(s.actor(ownerId), organisationId, '  Bronte Family Practice ');
    await s.team.rename(OPERATOR, organisationId, 'Bronte Medical');
    expect(s.accounts.organisation(organisationId)?.name).toBe('Bronte Medical');
    const renames = (await s.audit.read({ organisationId })).filter((e) => e.event === 'organisation_renamed');
    expect(renames).toEqual([
      expect.objectContaining({
        source: 'web',
        account_id: ownerId,
        email: 'owner@bronte.example',
        previous_name: 'bronte',
        organisation_name: 'Bronte Family Practice',
      }),
      expect.objectContaining({
        source: 'admin',
        account_id: null,
        previous_name: 'Bronte Family Practice',
        organisation_name: 'Bronte Medical',
      }),
    ]);
  });
});
