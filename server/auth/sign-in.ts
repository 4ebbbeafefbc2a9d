import type { Account } from '../accounts/account-records';
import type { AccountService } from '../accounts/account-service';
import type { HashingLimiter, HashingPlace } from '../accounts/hashing-limiter';
import { dummyPasswordHash, passwordHashing, verifyPassword } from '../accounts/passwords';
import { mustRecord, type AuditRecorder } from '../audit/audit-log';
import { ContractError } from '../contract-error';
import type { LoginThrottle } from './login-throttle';
import { NO_PASSWORD_RULE, ssoRequired, type PasswordRule } from './password-rule';

/** The session a sign-in starts, and ends again when its audit event cannot be written. */
export interface SignInSession {
  start(account: Account): Promise<void>;
  end(): Promise<void>;
}

/**
 * Signing in and out, and their audit events. Sign-in is throttled per email and per address before any password
 * work; a wrong password and an unknown email both cost one scrypt verification (against a stand-in hash for unknown
 * emails) and fail alike, so neither the time nor the answer reveals which accounts exist. Verifications go through
 * `hashing` (by default the process's one line, passwords.ts), which bounds how many run and wait at once. A right
 * password is then put to `requireSso` (an organisation that requires single sign-on refuses its members' passwords,
 * and lets its owners in as a break-glass, audited as `break_glass_sign_in` instead of `login`).
 */
export class SignInService {
  constructor(
    private readonly accounts: AccountService,
    private readonly throttle: LoginThrottle,
    private readonly audit: AuditRecorder,
    private readonly hashing: HashingLimiter = passwordHashing,
    /** What a sign-in of an address waits for first: its sign-up still being written after its answer. */
    private readonly signUpWritten: (email: string) => Promise<void> = async () => undefined,
    private readonly requireSso: PasswordRule = NO_PASSWORD_RULE,
  ) {}

  /**
   * Checks `password` for `email` from client address `ip`. When it is right, `session.start` gives the account its
   * session and the sign-in is recorded (or, when it cannot be, the session ended and the error thrown); otherwise the
   * failure is recorded and 401 invalid_credentials thrown (429 rate_limited while the email or address is limited;
   * 403 sso_required, also recorded as a failure, for a right password its organisation no longer accepts).
   * When the login throttle counts in a Redis that cannot be reached, rejects with rateLimitUnavailable(); when the
   * password checks' line is full, with hashingBusy(), and the attempt is not counted.
   */
  async signIn(email: string, password: string, ip: string, session: SignInSession): Promise<Account> {
    // The place in the password checks' line is taken before the throttle counts the attempt: an attempt refused as
    // busy checked no password, so it must not count as a failure (and the throttle cannot take one back without
    // forgetting the email's earlier failures).
    const place = this.hashing.reserve();
    try {
      return await this.check(email, password, ip, session, place);
    } finally {
      // Gives back a place no check used (a throttled attempt); a used one is given back as its check settles.
      place.release();
    }
  }

  private async check(
    email: string,
    password: string,
    ip: string,
    session: SignInSession,
    place: HashingPlace,
  ): Promise<Account> {
    // A shared throttle that cannot be reached rejects (rateLimitUnavailable()): no password is checked.
    const gate = await this.throttle.begin(email, ip);
    if (!gate.ok) throw new ContractError('rate_limited', { retryAfterSeconds: gate.retryAfterSeconds });

    await this.signUpWritten(email);
    const account = this.accounts.findByEmail(email);
    let verified: boolean;
    try {
      verified = await verifyPassword(password, account?.password_hash ?? (await dummyPasswordHash()), place);
    } catch (err) {
      gate.attempt.failed();
      throw err;
    }
    if (!account || !verified) {
      gate.attempt.failed();
      await this.audit.record({
        event: 'login_failed',
        source: 'web',
        account_id: account?.id ?? null,
        email,
        ip,
        reason: 'invalid_credentials',
      });
      throw new ContractError('invalid_credentials');
    }
    // The password was right: the throttle forgets the email's failures whatever the rule below says, as it is about
    // guessing passwords (a member refused for want of single sign-on is no guesser).
    await gate.attempt.succeeded();

    const who = this.who(account);
    const verdict = await this.requireSso.passwordVerdict(account.email, this.accounts.membershipOf(account.id));
    if (verdict.kind === 'sso_required') {
      await this.audit.record({
        event: 'login_failed',
        source: 'web',
        ...who,
        ip,
        reason: 'sso_required',
        sso_provider: verdict.provider,
      });
      throw ssoRequired(account.email, verdict.provider);
    }

    await session.start(account);
    // A sign-in without its audit event is refused (503 when the database is out), its session ended: never one
    // acknowledged that the trail does not show. A break-glass sign-in is its own event (not also a `login`), so the
    // trail shows it once and as what it was.
    const event =
      verdict.kind === 'break_glass'
        ? ({ event: 'break_glass_sign_in', sso_provider: verdict.provider } as const)
        : ({ event: 'login' } as const);
    try {
      await mustRecord(this.audit, { ...event, source: 'web', ...who, ip }).write();
    } catch (err) {
      await session.end().catch(() => undefined);
      throw err;
    }
    return account;
  }

  /** Ends the session with `endSession`, and records the sign-out of `account` (none: nobody was signed in). */
  async signOut(account: Account | undefined, ip: string, endSession: () => Promise<void>): Promise<void> {
    await endSession();
    if (account) {
      await this.audit.record({ event: 'logout', source: 'web', ...this.who(account), ip });
    }
  }

  /** The account as an audit event names it: itself, and its organisation (its Activity page lists the event). */
  private who(account: Account) {
    const organisation_id = this.accounts.membershipOf(account.id)?.organisation_id;
    return { account_id: account.id, email: account.email, organisation_id };
  }
}
