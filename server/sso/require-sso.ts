import { domainOfEmail } from '../../shared/domain/sso-domain-claims';
import type { Member } from '../accounts/account-records';
import { PASSWORD, type PasswordRule, type PasswordVerdict } from '../auth/password-rule';
import { isContractError } from '../contract-error';
import type { SsoConnection, SsoDirectory } from './sso-directory';

/**
 * Require SSO for password sign-in: asked only once the password has verified, so the answer never tells whether an
 * address has an account or where it is a member. The rule holds for a member of the organisation that claims the
 * address's domain; an address in a claimed domain whose account belongs elsewhere signs in as before (its own
 * organisation has not asked for single sign-on).
 */
export class RequireSso implements PasswordRule {
  constructor(private readonly directory: Pick<SsoDirectory, 'forDomain'>) {}

  async passwordVerdict(
    email: string,
    member: Pick<Member, 'organisation_id' | 'role'> | undefined,
  ): Promise<PasswordVerdict> {
    if (!member) return PASSWORD;
    let connection: SsoConnection | undefined;
    try {
      connection = await this.directory.forDomain(domainOfEmail(email));
    } catch (err) {
      // The organisation's connection cannot be read whole (its client secret no longer opens): whether it requires
      // single sign-on is not known. Its owners get in (the break-glass is for this); anyone else is refused.
      if (!isContractError(err, 'sso_misconfigured') || member.role !== 'owner') throw err;
      return { kind: 'break_glass' };
    }
    if (!connection?.requireSso || connection.organisationId !== member.organisation_id) return PASSWORD;
    const { provider } = connection;
    return { kind: member.role === 'owner' ? 'break_glass' : 'sso_required', provider };
  }
}
