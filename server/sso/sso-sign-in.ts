import { randomBytes } from 'node:crypto';
import type { SsoErrorCode, SsoProvider } from '../../shared/api/sso';
import { emailAddressProblem } from '../../shared/domain/text-hygiene';
import type { Account } from '../accounts/account-records';
import { normaliseEmail, type AccountService } from '../accounts/account-service';
import { hashPassword } from '../accounts/passwords';
import { mustRecord, type AuditInput, type AuditLog, type AuditRecorder } from '../audit/audit-log';
import type { SignInSession } from '../auth/sign-in';
import { ContractError, isContractError } from '../contract-error';
import type { SsoConnection, SsoDirectory } from './sso-directory';

/** Who the identity provider says signed in, once the protocol (OIDC, SAML) has checked its answer. */
export interface SsoIdentity {
  connection: SsoConnection;
  email: string;
  emailVerified: boolean;
  provider: SsoProvider;
}

export interface SsoSignInDeps {
  accounts: AccountService;
  directory: SsoDirectory;
  /** Where every outcome is written. */
  audit: AuditRecorder;
  /** The trail, read to tell an account's first sign-in by single sign-on (it is linked) from later ones. */
  trail: Pick<AuditLog, 'read'>;
}

/** The events that say an account has signed in by single sign-on before: it was linked, or joined by it. */
const ALREADY_LINKED = new Set(['sso_linked', 'sso_joined']);

/**
 * The end of every single sign-on, OpenID Connect's and SAML's alike: from an identity the provider vouched for to
 * the cookie session a password sign-in starts. The identity must be a verified address in one of the connection's
 * claimed domains; then an existing member of the organisation signs in (linked on the first time), a person with no
 * account joins with the organisation's default role (unless the team removed them), and an address that is a member
 * elsewhere is refused: a claimed domain never takes over another organisation's member. Every outcome is audited
 * with the organisation; a refusal throws ContractError with its sso_* code.
 *
 * A person who joins this way gets a long random password nobody is ever told (the account needs a hash, and an
 * unknown one signs nobody in). Should they need a password — an organisation that does not require single sign-on —
 * the password-reset link to their verified address sets one, as for anyone.
 */
export class SsoSignInService {
  constructor(private readonly deps: SsoSignInDeps) {}

  async complete(identity: SsoIdentity, ip: string, session: SignInSession): Promise<Account> {
    const email = normaliseEmail(identity.email);
    const refuse = (code: SsoErrorCode, accountId: string | null = null) =>
      this.refuse(code, { identity, email, ip, accountId });
    if (!identity.emailVerified) return refuse('sso_email_unverified');
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (emailAddressProblem(email) !== null || !identity.connection.domains.includes(domain)) {
      return refuse('sso_email_not_in_domains');
    }
    const { account, arrival } = await this.accountOf(identity, email, ip, refuse);
    await session.start(account);
    // As a password sign-in: never a session acknowledged that the trail does not show (503 when it cannot be written).
    try {
      await mustRecord(this.deps.audit, ...arrival, this.event('sso_sign_in', identity, email, ip, account.id)).write();
    } catch (err) {
      await session.end().catch(() => undefined);
      throw err;
    }
    return account;
  }

  /** The member who signs in, and the events of how they came (linked now, or none: joined, or linked before). */
  private async accountOf(
    identity: SsoIdentity,
    email: string,
    ip: string,
    refuse: (code: SsoErrorCode, accountId?: string | null) => Promise<never>,
  ): Promise<{ account: Account; arrival: AuditInput[] }> {
    const { accounts, directory } = this.deps;
    const organisationId = identity.connection.organisationId;
    const existing = accounts.findByEmail(email);
    if (existing) {
      if (accounts.membershipOf(existing.id)?.organisation_id !== organisationId) {
        return refuse('sso_account_elsewhere', existing.id);
      }
      const before = await this.deps.trail.read({ accountId: existing.id });
      const linked = before.some((e) => ALREADY_LINKED.has(e.event));
      return { account: existing, arrival: linked ? [] : [this.event('sso_linked', identity, email, ip, existing.id)] };
    }
    if (await directory.wasRemoved(organisationId, email)) return refuse('sso_member_removed');
    try {
      const joined = await accounts.createVerifiedMember(
        email,
        await hashPassword(randomBytes(32).toString('base64url')),
        { organisationId, role: identity.connection.defaultRole },
        {
          alongside: ({ account, member }) =>
            mustRecord(this.deps.audit, {
              ...this.event('sso_joined', identity, email, ip, account.id),
              member_email: account.email,
              role: member.role,
            }),
        },
      );
      return { account: joined.account, arrival: [] };
    } catch (err) {
      // The same person's other sign-in made the account a moment ago: theirs is now the existing one.
      if (isContractError(err, 'account_exists') && accounts.findByEmail(email)) {
        return this.accountOf(identity, email, ip, refuse);
      }
      throw err;
    }
  }

  private async refuse(
    code: SsoErrorCode,
    { identity, email, ip, accountId }: { identity: SsoIdentity; email: string; ip: string; accountId: string | null },
  ): Promise<never> {
    await this.deps.audit.record({
      ...this.event('sso_sign_in_refused', identity, email, ip, accountId),
      reason: code,
    });
    throw new ContractError(code);
  }

  private event(
    event: 'sso_sign_in' | 'sso_sign_in_refused' | 'sso_joined' | 'sso_linked',
    identity: SsoIdentity,
    email: string,
    ip: string,
    accountId: string | null,
  ): AuditInput {
    return {
      event,
      source: 'web',
      account_id: accountId,
      email,
      organisation_id: identity.connection.organisationId,
      ip,
      sso_provider: identity.provider,
    };
  }
}
