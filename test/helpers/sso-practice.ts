import { randomUUID } from 'node:crypto';
import type { SsoSettingsRequest } from '../../shared/api/sso';
import type { Role } from '../../shared/api/team';
import { newLinkToken } from '../../server/accounts/link-tokens';
import type { ServerRuntime } from '../../server/runtime-types';
import { OPERATOR } from '../../server/team/team-service';
import { seedAccount } from './test-server';

/** A Microsoft Entra ID directory (tenant) ID of the tests' practices. */
export const TEST_TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';

/** The operator's Microsoft app as a server's configuration names it (the provider is then offered). */
export const MICROSOFT_APP = {
  SSO_MICROSOFT_CLIENT_ID: 'operator-app',
  SSO_MICROSOFT_CLIENT_SECRET: 'operator-app-secret',
} as const;

/** An identity provider's address where nothing listens (the discard port): a start there is refused at once. */
export const NO_PROVIDER = 'http://127.0.0.1:9';

const PASSWORD = 'a long enough passphrase';
let seq = 0;

/** The account's address proved, as a verification link used proves it (only then may an owner claim its domain). */
async function verify(runtime: ServerRuntime, accountId: string): Promise<void> {
  const now = runtime.clock();
  const { token, hash } = newLinkToken();
  const expires_at = new Date(now.getTime() + 3600_000).toISOString();
  const record = {
    id: randomUUID(),
    account_id: accountId,
    token_hash: hash,
    created_at: now.toISOString(),
    expires_at,
  };
  await runtime.accounts.links.issueEmailVerification(record, now);
  await runtime.accounts.links.verifyEmail(token, now);
}

/**
 * A practice at a domain of its own whose owner (verified) saved single sign-on with Microsoft for it, `require_sso`
 * as asked; `add` puts people with a password in its team, `save` saves the settings again.
 */
export async function ssoPractice(runtime: ServerRuntime, options: { requireSso: boolean }) {
  const domain = `clinic${++seq}x${process.pid}.com.au`;
  const owner = await seedAccount(runtime, { withKey: false, email: `owner@${domain}` });
  await verify(runtime, owner.accountId);
  const organisationId = runtime.accounts.membershipOf(owner.accountId)!.organisation_id;
  const add = async (role: Exclude<Role, 'owner'>) => {
    const email = `${role}${++seq}@${domain}`;
    await runtime.team.add(OPERATOR, organisationId, email, PASSWORD, role);
    return { email, password: PASSWORD };
  };
  const actor = {
    accountId: owner.accountId,
    organisationId,
    audit: {
      source: 'web',
      ip: '192.0.2.1',
      account_id: owner.accountId,
      email: owner.email,
      organisation_id: organisationId,
    },
  } as const;
  const save = (require_sso: boolean) => {
    const request: SsoSettingsRequest = {
      connection: { provider: 'microsoft', tenant_id: TEST_TENANT },
      domains: [domain],
      default_role: 'member',
      require_sso,
    };
    return runtime.sso.settings.save(actor, request, 'http://127.0.0.1');
  };
  await save(options.requireSso);
  return { domain, organisationId, owner, add, save };
}
