import { randomUUID } from 'node:crypto';
import { EMAIL_SHAPE, MAX_EMAIL_LENGTH } from '../../shared/api/auth';
import { DEFAULT_RATE_LIMIT, PLAN_NAME } from '../../shared/api/keys';
import type { AuditActor, AuditRecorder } from '../audit/audit-log';
import type { Account, AccountStore, Subscription } from './account-store';
import { hashPassword } from './passwords';
import { endOfSydneyDay } from './sydney-time';

export class AccountError extends Error {
  constructor(
    readonly code: 'account_exists' | 'account_not_found' | 'invalid_email' | 'weak_password',
    message: string,
  ) {
    super(message);
  }
}

export const MIN_PASSWORD_LENGTH = 10;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isSubscriptionActive(sub: Subscription | undefined, now: Date): boolean {
  if (!sub || sub.status !== 'active') return false;
  return sub.expires_at === null || now.getTime() < Date.parse(sub.expires_at);
}

/** Every account starts with an inactive subscription at the default limit; the admin CLI activates it. */
function newSubscription(accountId: string, now: Date): Subscription {
  return {
    id: randomUUID(),
    account_id: accountId,
    plan: PLAN_NAME,
    status: 'inactive',
    expires_at: null,
    rate_limit: DEFAULT_RATE_LIMIT,
    updated_at: now.toISOString(),
  };
}

/**
 * When a change happens (default: the service's clock) and who makes it (`by`), which the audit trail records with
 * the event. Every HTTP route and admin command passes `by`; only set-up code (tests, benchmarks) leaves it out, and
 * then nothing is audited.
 */
export interface ChangeOptions {
  now?: Date;
  by?: AuditActor;
}

/** Accounts and their one subscription each. Billing is out of scope: the admin CLI sets subscriptions. */
export class AccountService {
  private byEmail = new Map<string, Account>();
  private byId = new Map<string, Account>();
  private subscriptionByAccount = new Map<string, Subscription>();

  constructor(
    private readonly store: AccountStore,
    private readonly audit: AuditRecorder,
    private readonly clock: () => Date,
  ) {
    this.reindex();
    store.onChange(() => this.reindex());
  }

  findByEmail(email: string): Account | undefined {
    return this.byEmail.get(normaliseEmail(email));
  }

  findById(id: string): Account | undefined {
    return this.byId.get(id);
  }

  subscriptionOf(accountId: string): Subscription | undefined {
    return this.subscriptionByAccount.get(accountId);
  }

  list(): { account: Account; subscription: Subscription | undefined }[] {
    return this.store.current.accounts.map((account) => ({ account, subscription: this.subscriptionOf(account.id) }));
  }

  async createAccount(
    email: string,
    password: string,
    { now = this.clock(), by }: ChangeOptions = {},
  ): Promise<Account> {
    const normalised = normaliseEmail(email);
    if (!EMAIL_SHAPE.test(normalised) || normalised.length > MAX_EMAIL_LENGTH) {
      throw new AccountError('invalid_email', `Not an email address: ${email}`);
    }
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new AccountError('weak_password', `The password must have at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    const password_hash = await hashPassword(password);
    const created = await this.store.update((data) => {
      if (data.accounts.some((a) => a.email === normalised)) {
        throw new AccountError('account_exists', `An account for ${normalised} already exists`);
      }
      const account: Account = { id: randomUUID(), email: normalised, password_hash, created_at: now.toISOString() };
      data.accounts.push(account);
      data.subscriptions.push(newSubscription(account.id, now));
      return account;
    });
    if (by) await this.audit.record({ event: 'account_created', ...by, account_id: created.id, email: created.email });
    return created;
  }

  /**
   * Sets the subscription of the account with `email`. `expires` is a day (YYYY-MM-DD): the subscription works until
   * the end of that day in Sydney; `null` removes the end date; undefined keeps it.
   */
  async setSubscription(
    email: string,
    change: { status?: 'active' | 'inactive'; expires?: string | null; rateLimit?: number },
    { now = this.clock(), by }: ChangeOptions = {},
  ): Promise<Subscription> {
    const normalised = normaliseEmail(email);
    const changed = await this.store.update((data) => {
      const account = data.accounts.find((a) => a.email === normalised);
      if (!account) throw new AccountError('account_not_found', `No account for ${normalised}`);
      let sub = data.subscriptions.find((s) => s.account_id === account.id);
      if (!sub) {
        sub = newSubscription(account.id, now);
        data.subscriptions.push(sub);
      }
      if (change.status) sub.status = change.status;
      if (change.expires !== undefined) {
        sub.expires_at = change.expires === null ? null : endOfSydneyDay(change.expires).toISOString();
      }
      if (change.rateLimit !== undefined) sub.rate_limit = change.rateLimit;
      sub.updated_at = now.toISOString();
      return { ...sub };
    });
    if (by) {
      const { account_id, status, expires_at, rate_limit } = changed;
      await this.audit.record({
        event: 'subscription_changed',
        ...by,
        account_id,
        email: normalised,
        subscription: { status, expires_at, rate_limit },
      });
    }
    return changed;
  }

  private reindex(): void {
    const { accounts, subscriptions } = this.store.current;
    this.byEmail = new Map(accounts.map((a) => [a.email, a]));
    this.byId = new Map(accounts.map((a) => [a.id, a]));
    this.subscriptionByAccount = new Map(subscriptions.map((s) => [s.account_id, s]));
  }
}
