import { SSO_ENDPOINTS, SSO_PROVIDER_LABELS, type SsoProvider } from '../../shared/api/sso';
import type { Member } from '../accounts/account-records';
import { ContractError, isContractError } from '../contract-error';
import type { SsoConnection, SsoDirectory } from './sso-directory';

/**
 * What "Require SSO" makes of a password sign-in whose password was right: `password` (no rule applies), `break_glass`
 * (an owner of an organisation that requires single sign-on: let in, audited as such, so a provider that is down or
 * misconfigured never locks the practice out), or `sso_required` (any other member of it: refused).
 */
export type PasswordVerdict =
  | { kind: 'password' }
  | { kind: 'break_glass'; provider?: SsoProvider }
  | { kind: 'sso_required'; provider: SsoProvider };

const PASSWORD: PasswordVerdict = { kind: 'password' };

/** The lower-case domain of an address (what a claim names). */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * Require SSO for password sign-in: asked only once the password has verified, so the answer never tells whether an
 * address has an account or where it is a member. The rule holds for a member of the organisation that claims the
 * address's domain; an address in a claimed domain whose account belongs elsewhere signs in as before (its own
 * organisation has not asked for single sign-on).
 */
export class RequireSso {
  constructor(private readonly directory: Pick<SsoDirectory, 'forDomain'>) {}

  async passwordVerdict(
    email: string,
    member: Pick<Member, 'organisation_id' | 'role'> | undefined,
  ): Promise<PasswordVerdict> {
    if (!member) return PASSWORD;
    let connection: SsoConnection | undefined;
    try {
      connection = await this.directory.forDomain(emailDomain(email));
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

/** No organisation requires single sign-on: a server (or a test) without the SSO directory. */
export const NO_SSO_RULE: Pick<RequireSso, 'passwordVerdict'> = { passwordVerdict: async () => PASSWORD };

/**
 * The refusal of a member's password: 403 sso_required, its message naming the route to use instead and its details
 * the provider (the console words it: "Your practice signs in with Microsoft").
 */
export function ssoRequired(email: string, provider: SsoProvider): ContractError {
  const start = `${SSO_ENDPOINTS.start.path}?email=${encodeURIComponent(email)}`;
  return new ContractError('sso_required', {
    message: `Your organisation signs in with single sign-on: continue with ${SSO_PROVIDER_LABELS[provider]} (GET ${start})`,
    details: [provider],
  });
}
