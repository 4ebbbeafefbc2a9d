import { AccountService } from '../../../server/accounts/account-service';
import { jsonStores, openStorage, type Storage } from '../../../server/backends/registry';
import { InvitationService } from '../../../server/invitations/invitation-service';
import { createLogger } from '../../../server/logger';
import { DEFAULT_MAIL_LIMITS, MailLimit, mailThrottleLimits } from '../../../server/mail/mail-limit';
import { noMailer } from '../../../server/mail/mailer';
import { TeamService, type TeamActor } from '../../../server/team/team-service';
import { backendEnv, testBackend } from '../../helpers/shared-backends';
import { tempDir } from '../../helpers/temp-dir';

/** `dataDir`'s stores on the test's backend: its JSON files, or (integration-shared) its database and Redis prefix. */
async function storageFor(dataDir: string, clock: () => Date): Promise<Storage> {
  const options = { logger: createLogger('silent'), clock, watch: false, redisClock: 'caller' as const };
  if (testBackend() === 'json') return jsonStores(dataDir, options);
  const env = await backendEnv(dataDir);
  return openStorage(
    {
      DATA_DIR: dataDir,
      DATABASE_URL: env.DATABASE_URL,
      REDIS_URL: env.REDIS_URL,
      REDIS_KEY_PREFIX: env.REDIS_KEY_PREFIX ?? 'dte:',
    },
    options,
  );
}

/**
 * The team's services as the server wires them (accounts, team rules, invitations, over one accounts document and
 * audit trail), on a fresh data directory and the test's backend, with a clock the test moves. No HTTP: a rule that
 * breaks fails here, where it lives.
 */
export async function teamServices(start = new Date('2026-11-02T00:00:00.000Z')) {
  const now = { t: start.getTime() };
  const clock = () => new Date(now.t);
  const storage = await storageFor(await tempDir('dte-team-services-'), clock);
  const store = await storage.accounts();
  const audit = await storage.audit();
  const accounts = new AccountService(store, audit, clock);
  const throttle = await storage.loginThrottle(mailThrottleLimits(DEFAULT_MAIL_LIMITS), () => now.t);
  const mailLimit = new MailLimit(throttle.scoped('mail'));
  const invitations = new InvitationService({
    accounts,
    audit,
    mailer: noMailer,
    mailLimit,
    billing: false,
    clock,
  });
  const team = new TeamService({ accounts, audit, sentInvitations: invitations });

  /** An organisation with its owner, and a member of each `roles` added by the operator. */
  const organisation = async (name: string, ...roles: ('owner' | 'admin' | 'member')[]) => {
    const owner = await accounts.createAccount(`owner@${name}.example`, PASSWORD, { organisationName: name });
    const organisationId = accounts.membershipOf(owner.id)!.organisation_id;
    const people = [];
    for (const [i, role] of roles.entries()) {
      const email = `${role}${i}@${name}.example`;
      people.push(await team.add({ member: null, by: { source: 'admin' } }, organisationId, email, PASSWORD, role));
    }
    return { organisationId, ownerId: owner.id, ids: people };
  };

  /** The member `accountId` acting over HTTP, with the role they have now. */
  const actor = (accountId: string): TeamActor => ({
    member: accounts.membershipOf(accountId)!,
    email: accounts.findById(accountId)!.email,
    by: { source: 'web', ip: '192.0.2.1' },
  });

  return {
    accounts,
    audit,
    team,
    invitations,
    organisation,
    actor,
    /** Moves the services' clock on. */
    advance: (ms: number) => (now.t += ms),
    close: () => storage.close(),
  };
}

export type TeamServices = Awaited<ReturnType<typeof teamServices>>;

export const PASSWORD = 'correct horse battery staple';
