import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INVITATION_DAYS } from '../../../shared/api/invitations';
import { OPERATOR } from '../../../server/team/team-service';
import { teamServices, type TeamServices } from '../team/team-services';

const ORIGIN = 'https://console.clinic.example';
const DAY_MS = 24 * 3600_000;
const tokenOf = (link: string) => link.slice(link.indexOf('#') + 1);

/** The invitation rules at the service (no HTTP), on the test's backend: JSON files, or PostgreSQL (integration-shared). */
describe('InvitationService', () => {
  let s: TeamServices;
  beforeEach(async () => {
    s = await teamServices();
  });
  afterEach(async () => {
    await s?.close();
  });

  it(`a link lives ${INVITATION_DAYS} days from when it was sent: then it is dead, unlisted and purged`, async () => {
    const { organisationId, ownerId } = await s.organisation('bondi');
    const sent = await s.invitations.invite(s.actor(ownerId), organisationId, 'gp@bondi.example', 'member', ORIGIN);
    expect(Date.parse(sent.invitation.expires_at) - Date.parse(sent.invitation.created_at)).toBe(
      INVITATION_DAYS * DAY_MS,
    );
    s.advance(INVITATION_DAYS * DAY_MS - 1);
    expect(s.invitations.lookup(tokenOf(sent.link))).toMatchObject({ email: 'gp@bondi.example', role: 'member' });
    s.advance(1);
    expect(() => s.invitations.lookup(tokenOf(sent.link))).toThrow(expect.objectContaining({ code: 'invalid_link' }));
    expect(s.invitations.list(organisationId)).toEqual([]);
    expect(await s.invitations.purgeExpired()).toBe(1);
  });

  it('a resend gives a new link for another full lifetime; the old one stops working', async () => {
    const { organisationId, ownerId } = await s.organisation('manly');
    const sent = await s.invitations.invite(s.actor(ownerId), organisationId, 'gp@manly.example', 'admin', ORIGIN);
    s.advance(6 * DAY_MS);
    const resent = await s.invitations.resend(s.actor(ownerId), organisationId, sent.invitation.id, ORIGIN);
    expect(() => s.invitations.lookup(tokenOf(sent.link))).toThrow(expect.objectContaining({ code: 'invalid_link' }));
    s.advance(INVITATION_DAYS * DAY_MS - 1);
    expect(s.invitations.lookup(tokenOf(resent.link))).toMatchObject({ role: 'admin' });
  });

  it('invites within mayAssign: admins never invite an owner; members invite nobody', async () => {
    const { organisationId, ids } = await s.organisation('coogee', 'admin', 'member');
    const [adminId, memberId] = ids as [string, string];
    await expect(
      s.invitations.invite(s.actor(adminId), organisationId, 'boss@coogee.example', 'owner', ORIGIN),
    ).rejects.toMatchObject({ code: 'forbidden_role', status: 403 });
    await expect(
      s.invitations.invite(s.actor(memberId), organisationId, 'gp@coogee.example', 'member', ORIGIN),
    ).rejects.toMatchObject({ code: 'forbidden_role' });
    await s.invitations.invite(s.actor(adminId), organisationId, 'gp@coogee.example', 'admin', ORIGIN);
    expect(s.invitations.list(organisationId).map((i) => [i.email, i.role])).toEqual([['gp@coogee.example', 'admin']]);
  });

  it('what a removed or demoted member sent is revoked, and the trail says why', async () => {
    const { organisationId, ownerId, ids } = await s.organisation('bronte', 'admin', 'admin');
    const [leaverId, demotedId] = ids as [string, string];
    const fromLeaver = await s.invitations.invite(
      s.actor(leaverId),
      organisationId,
      'a@bronte.example',
      'member',
      ORIGIN,
    );
    await s.invitations.invite(s.actor(demotedId), organisationId, 'b@bronte.example', 'admin', ORIGIN);
    await s.invitations.invite(s.actor(demotedId), organisationId, 'c@bronte.example', 'member', ORIGIN);
    await s.team.remove(s.actor(ownerId), organisationId, leaverId);
    // Demoted to member, they may invite nobody: both of theirs go.
    await s.team.changeRole(OPERATOR, organisationId, demotedId, 'member');
    expect(s.invitations.list(organisationId)).toEqual([]);
    expect(() => s.invitations.lookup(tokenOf(fromLeaver.link))).toThrow(
      expect.objectContaining({ code: 'invalid_link' }),
    );
    const revoked = (await s.audit.read({ organisationId })).filter((e) => e.event === 'invitation_revoked');
    expect(revoked.map((e) => [e.member_email, e.reason])).toEqual([
      ['a@bronte.example', 'inviter_removed'],
      ['b@bronte.example', 'inviter_role_changed'],
      ['c@bronte.example', 'inviter_role_changed'],
    ]);
  });
});
