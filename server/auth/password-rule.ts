import { SSO_ENDPOINTS, SSO_PROVIDER_LABELS, type SsoProvider } from '../../shared/api/sso';
import type { Member } from '../accounts/account-records';
import { ContractError } from '../contract-error';

/**
 * What a right password is worth (issue #38's Require SSO): `password` (no rule applies), `break_glass` (an owner of
 * an organisation that requires single sign-on: let in, audited as such, so a provider that is down or misconfigured
 * never locks the practice out), or `sso_required` (any other member of it: refused).
 */
export type PasswordVerdict =
  | { kind: 'password' }
  | { kind: 'break_glass'; provider?: SsoProvider }
  | { kind: 'sso_required'; provider: SsoProvider };

/** Asked by sign-in once a password has verified (server/sso/require-sso.ts). */
export interface PasswordRule {
  passwordVerdict(
    email: string,
    member: Pick<Member, 'organisation_id' | 'role'> | undefined,
  ): Promise<PasswordVerdict>;
}

export const PASSWORD: PasswordVerdict = { kind: 'password' };

/** No organisation requires single sign-on: a sign-in (a test's) without the SSO directory. */
export const NO_PASSWORD_RULE: PasswordRule = { passwordVerdict: async () => PASSWORD };

/**
 * The refusal of a member's password: 403 sso_required, its message naming the route to use instead and its details
 * the provider (the sign-in page words it: "Your practice signs in with Microsoft").
 */
export function ssoRequired(email: string, provider: SsoProvider): ContractError {
  const start = `${SSO_ENDPOINTS.start.path}?email=${encodeURIComponent(email)}`;
  return new ContractError('sso_required', {
    message: `Your organisation signs in with single sign-on: continue with ${SSO_PROVIDER_LABELS[provider]} (GET ${start})`,
    details: [provider],
  });
}
