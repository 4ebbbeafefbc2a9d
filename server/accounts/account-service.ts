import { randomUUID } from 'node:crypto';
import { MIN_PASSWORD_LENGTH } from '../../shared/api/auth';
import { emailAddressProblem, normaliseEmailAddress } from '../../shared/domain/text-hygiene';
import { DEFAULT_RATE_LIMIT, PLAN_NAME } from '../../shared/api/keys';
import type { Role } from '../../shared/api/team';
import type { AuditActor, AuditRecorder } from '../audit/audit-log';
import { ContractError } from '../contract-error';
import type { Alongside } from '../storage/document-store';
import { AccountLinks, replaceVerification } from './account-links';
import type {
  Account,
  AccountsFile,
  AccountStore,
  BillingEvent,
  EmailVerification,
  Member,
  Organisation,
  Subscription,
} from './account-records';
import { hashPassword } from './passwords';
import { endOfSydneyDay } from './sydney-time';

/**
 * The operator's mistakes, which only the admin CLI can make (it prints the message): no HTTP route meets them — a
 * request's schema refuses an address that is not one before any service sees it, and a signed-in member's
 * organisation exists — so they are no answers of the contract (shared/api/errors.ts). Every refusal a request can
 * meet is the contract's error (ContractError).
 */
export class AccountError extends Error {
  constructor(
    readonly code: 'account_not_found' | 'invalid_email' | 'organisation_not_found',
    message: string,
  ) {
    super(message);
  }
}

/** An address as accounts are stored and looked up (normaliseEmailAddress, as every request's schema does). */
export function normaliseEmail(email: string): string {
  return normaliseEmailAddress(email);
}

export function isSubscriptionActive(sub: Pick<Subscription, 'status' | 'expires_at'> | undefined, now: Date): boolean {
  if (!sub || sub.status !== 'active') return false;
  return sub.expires_at === null || now.getTime() < Date.parse(sub.expires_at);
}

/** Every organisation starts with an inactive subscription at the default limit; the admin CLI activates it. */
export function newSubscription(organisationId: string, now: Date): Subscription {
  return {
    id: randomUUID(),
    organisation_id: organisationId,
    plan: PLAN_NAME,
    status: 'inactive',
    expires_at: null,
    rate_limit: DEFAULT_RATE_LIMIT,
    updated_at: now.toISOString(),
    ...NOT_BILLED,
  };
}

/**
 * Adds an account (`email` already normalised, its password already hashed) to `data` in its place: a member of an
 * existing organisation, or the owner of a new one (named, else after the email) with an inactive subscription.
 * Throws ContractError('account_exists') or AccountError('organisation_not_found') before adding anything.
 */
function addAccount(
  data: AccountsFile,
  email: string,
  passwordHash: string,
  now: Date,
  place: NewAccountPlace,
): MemberView {
  if (data.accounts.some((a) => normaliseEmail(a.email) === email)) {
    // The operator's CLI prints the message: it names the address it was given.
    throw new ContractError('account_exists', { message: `An account for ${email} already exists` });
  }
  if ('organisationId' in place && !data.organisations.some((o) => o.id === place.organisationId)) {
    throw new AccountError('organisation_not_found', `No organisation ${place.organisationId}`);
  }
  const at = now.toISOString();
  const account: Account = {
    id: randomUUID(),
    email,
    password_hash: passwordHash,
    created_at: at,
    email_verified_at: null,
  };
  let member: Member;
  if ('organisationId' in place) {
    member = { organisation_id: place.organisationId, account_id: account.id, role: place.role, created_at: at };
  } else {
    const organisation: Organisation = {
      id: randomUUID(),
      name: place.organisationName?.trim() || email,
      created_at: at,
    };
    data.organisations.push(organisation);
    data.subscriptions.push(newSubscription(organisation.id, now));
    member = { organisation_id: organisation.id, account_id: account.id, role: 'owner', created_at: at };
  }
  data.accounts.push(account);
  data.members.push(member);
  return { account, member };
}

/** A subscription's Stripe fields when no Stripe subscription pays for it (the operator's, or before a checkout). */
export const NOT_BILLED = {
  stripe_customer_id: null,
  stripe_subscription_id: null,
  stripe_status: null,
  current_period_end: null,
  cancel_at_period_end: false,
  ended_reason: null,
  stripe_synced_at: null,
} as const satisfies Partial<Subscription>;

/**
 * When a change happens (default: the service's clock) and who makes it (`by`), which the audit trail records with
 * the event. Every HTTP route and admin command passes `by`; only set-up code (tests, benchmarks) leaves it out, and
 * then nothing is audited.
 */
export interface ChangeOptions {
  now?: Date;
  by?: AuditActor;
}

/** Where a new account goes: a new organisation it owns (named, or after its email), or an existing one. */
export type NewAccountPlace = { organisationName?: string } | { organisationId: string; role: Role };

/** A member of an organisation, with the account behind it. */
export interface MemberView {
  account: Account;
  member: Member;
}

/** A member's role change: the member as they were (`before`) and are (`member`). */
export interface MemberChange extends MemberView {
  before: Member;
}

/**
 * Who may change or remove `target`, checked inside the write on `data` as it is then (not on what a request read
 * before it): a change two people make at once is judged on the roles each finds. Throws to refuse; nothing is written.
 */
export type MemberRule = (target: Member, data: AccountsFile) => void;

/** What goes with a change of a member in its write: who may make it (`rule`) and its audit event (`alongside`). */
export interface MemberChangeOptions<R> {
  rule?: MemberRule;
  alongside?: Alongside<R>;
}

/**
 * What of the accounts document billing writes (billing/billing-records.ts, the only code that changes a
 * subscription's Stripe fields and the Stripe events applied): the subscriptions and the events, with the
 * organisations to read.
 */
export interface BillingTables {
  readonly organisations: readonly Organisation[];
  subscriptions: Subscription[];
  billing_events: BillingEvent[];
}

/**
 * Accounts (people), the organisations (practices) they are members of, and each organisation's one subscription.
 * The one writer of the accounts document: every other feature changes it through an operation here (or `links`, or
 * billing's `updateBilling`), each one atomic update with its audit events written alongside. Who may change what is
 * the callers' rule (team-service, the routers' role gate), passed in to be judged inside the write; this keeps the
 * data consistent: every organisation keeps at least one owner.
 */
export class AccountService {
  /** The invitations, password resets and e-mail verifications. */
  readonly links: AccountLinks;

  private byEmail = new Map<string, Account>();
  private byId = new Map<string, Account>();
  private memberByAccount = new Map<string, Member>();
  private organisationById = new Map<string, Organisation>();
  private subscriptionByOrganisation = new Map<string, Subscription>();
  private subscriptionById = new Map<string, Subscription>();

  constructor(
    private readonly store: AccountStore,
    private readonly audit: AuditRecorder,
    private readonly clock: () => Date,
  ) {
    this.links = new AccountLinks(store);
    this.reindex();
    store.onChange(() => this.reindex());
  }

  /** The document as it is now, to read (a snapshot: never changed, only replaced by the next write). */
  get current(): Readonly<AccountsFile> {
    return this.store.current;
  }

  findByEmail(email: string): Account | undefined {
    return this.byEmail.get(normaliseEmail(email));
  }

  findById(id: string): Account | undefined {
    return this.byId.get(id);
  }

  /** The account's membership (its organisation and role); undefined for an account in none. */
  membershipOf(accountId: string): Member | undefined {
    return this.memberByAccount.get(accountId);
  }

  organisation(id: string): Organisation | undefined {
    return this.organisationById.get(id);
  }

  /** The subscription of the account's organisation. */
  subscriptionOf(accountId: string): Subscription | undefined {
    const member = this.memberByAccount.get(accountId);
    return member && this.subscriptionByOrganisation.get(member.organisation_id);
  }

  subscription(id: string): Subscription | undefined {
    return this.subscriptionById.get(id);
  }

  subscriptionOfOrganisation(organisationId: string): Subscription | undefined {
    return this.subscriptionByOrganisation.get(organisationId);
  }

  /** The organisation's members, in the order they joined. */
  membersOf(organisationId: string): MemberView[] {
    return this.store.current.members
      .filter((m) => m.organisation_id === organisationId)
      .flatMap((member) => {
        const account = this.byId.get(member.account_id);
        return account ? [{ account, member }] : [];
      });
  }

  list(): { account: Account; subscription: Subscription | undefined; membership: Member | undefined }[] {
    return this.store.current.accounts.map((account) => ({
      account,
      subscription: this.subscriptionOf(account.id),
      membership: this.membershipOf(account.id),
    }));
  }

  /**
   * Creates an account (a person) with `password`: by default the owner of a new organisation with an inactive
   * subscription (what the operator's `create-account` does); with `organisationId`, a member of that one.
   */
  async createAccount(
    email: string,
    password: string,
    { now = this.clock(), by, ...place }: ChangeOptions & NewAccountPlace = {},
  ): Promise<Account> {
    const normalised = checkedEmail(email);
    checkPassword(password);
    const password_hash = await hashPassword(password);
    const created = await this.store.update((data) => addAccount(data, normalised, password_hash, now, place).account);
    if (by) {
      const organisation_id = this.store.current.members.find((m) => m.account_id === created.id)?.organisation_id;
      await this.audit.record({
        event: 'account_created',
        ...by,
        account_id: created.id,
        email: created.email,
        organisation_id,
      });
    }
    return created;
  }

  /**
   * Sign-up's owner (issue #27): a new organisation named `organisationName` with an inactive subscription, as
   * createAccount's default, but from a password already hashed (sign-up hashes before it knows whether the address is
   * taken, so that a taken one costs the same) and with its `verification` link (made for the new account's id) stored
   * in the same write and `audit` written with it (sign-up's event, with its reason), so a failure leaves none of
   * them. Throws ContractError('account_exists'), writing nothing, when the email has an account (a concurrent
   * sign-up's included).
   */
  async createSignedUpOwner(
    email: string,
    passwordHash: string,
    organisationName: string,
    {
      now = this.clock(),
      verification,
      audit,
    }: {
      now?: Date;
      verification?: (accountId: string) => EmailVerification;
      audit?: Alongside<MemberView>;
    } = {},
  ): Promise<MemberView> {
    const normalised = checkedEmail(email);
    return this.store.update((data) => {
      const created = addAccount(data, normalised, passwordHash, now, { organisationName });
      if (verification) replaceVerification(data, verification(created.account.id), now);
      return { account: { ...created.account }, member: { ...created.member } };
    }, audit);
  }

  /**
   * Single sign-on's new member (issue #38): `email` (its address verified by the organisation's identity provider)
   * joins `organisationId` with `role`, holding `passwordHash` (of a password nobody is told), its audit event written
   * with it. Throws ContractError('account_exists'), writing nothing, when the email has an account (a concurrent
   * sign-in's included).
   */
  async createVerifiedMember(
    email: string,
    passwordHash: string,
    place: { organisationId: string; role: Role },
    { now = this.clock(), alongside }: { now?: Date; alongside?: Alongside<MemberView> } = {},
  ): Promise<MemberView> {
    const normalised = checkedEmail(email);
    return this.store.update((data) => {
      const created = addAccount(data, normalised, passwordHash, now, place);
      created.account.email_verified_at = now.toISOString();
      return { account: { ...created.account }, member: { ...created.member } };
    }, alongside);
  }

  /**
   * Gives the member `accountId` of `organisationId` the role `role`; the last owner cannot stop being one. Returns the
   * member as they were and are; unchanged (nothing written) when they had the role already.
   */
  async setRole(
    organisationId: string,
    accountId: string,
    role: Role,
    { rule, alongside }: MemberChangeOptions<MemberChange> = {},
  ): Promise<MemberChange> {
    return this.store.update((data) => {
      const member = memberIn(data, organisationId, accountId);
      rule?.(member, data);
      const before = { ...member };
      if (member.role === 'owner' && role !== 'owner') keepAnOwner(data, organisationId, accountId);
      member.role = role;
      return { account: { ...accountOf(data, accountId) }, before, member: { ...member } };
    }, alongside);
  }

  /**
   * Removes the member `accountId` from `organisationId`, and with it their account (an account belongs to one
   * organisation): their sign-in stops working; the keys they created stay the organisation's. The last owner
   * cannot be removed. Returns the removed account and member.
   */
  async removeMember(
    organisationId: string,
    accountId: string,
    { rule, alongside }: MemberChangeOptions<MemberView> = {},
  ): Promise<MemberView> {
    return this.store.update((data) => {
      const member = memberIn(data, organisationId, accountId);
      rule?.(member, data);
      if (member.role === 'owner') keepAnOwner(data, organisationId, accountId);
      const account = accountOf(data, accountId);
      data.members = data.members.filter((m) => m.account_id !== accountId);
      data.accounts = data.accounts.filter((a) => a.id !== accountId);
      // Their reset and verification links go with them (PostgreSQL's rows would: ON DELETE CASCADE).
      data.password_resets = data.password_resets.filter((r) => r.account_id !== accountId);
      data.email_verifications = data.email_verifications.filter((r) => r.account_id !== accountId);
      return { account, member };
    }, alongside);
  }

  /**
   * Renames the organisation. `rule` (the team's: owners only) is judged inside the write, on the organisation as it
   * was; `alongside` is written with it (its audit event).
   */
  async renameOrganisation(
    organisationId: string,
    name: string,
    {
      rule,
      alongside,
    }: { rule?: (organisation: Organisation, data: AccountsFile) => void; alongside?: Alongside<Organisation> } = {},
  ): Promise<Organisation> {
    return this.store.update((data) => {
      const organisation = data.organisations.find((o) => o.id === organisationId);
      if (!organisation) throw new AccountError('organisation_not_found', `No organisation ${organisationId}`);
      rule?.({ ...organisation }, data);
      organisation.name = name.trim();
      return { ...organisation };
    }, alongside);
  }

  /**
   * Billing's write (billing/billing-records.ts): `change` gets the subscriptions and the Stripe events of the
   * document in one update, `alongside` (its audit events) written with it.
   */
  updateBilling<R>(change: (tables: BillingTables) => R, alongside?: Alongside<R>): Promise<R> {
    return this.store.update((data) => change(data), alongside);
  }

  /**
   * Sets the subscription of the organisation of the account with `email`. `expires` is a day (YYYY-MM-DD): the
   * subscription works until the end of that day in Sydney; `null` removes the end date; undefined keeps it.
   */
  async setSubscription(
    email: string,
    change: { status?: 'active' | 'inactive'; expires?: string | null; rateLimit?: number },
    { now = this.clock(), by }: ChangeOptions = {},
  ): Promise<Subscription> {
    const normalised = normaliseEmail(email);
    const changed = await this.store.update((data) => {
      const account = data.accounts.find((a) => normaliseEmail(a.email) === normalised);
      if (!account) throw new AccountError('account_not_found', `No account for ${normalised}`);
      const member = data.members.find((m) => m.account_id === account.id);
      if (!member) throw new AccountError('organisation_not_found', `${normalised} is in no organisation`);
      let sub = data.subscriptions.find((s) => s.organisation_id === member.organisation_id);
      if (!sub) {
        sub = newSubscription(member.organisation_id, now);
        data.subscriptions.push(sub);
      }
      if (change.status) {
        sub.status = change.status;
        // The operator's word overrides Stripe's until Stripe next says something of the subscription.
        sub.ended_reason = change.status === 'inactive' ? 'operator' : null;
      }
      if (change.expires !== undefined) {
        sub.expires_at = change.expires === null ? null : endOfSydneyDay(change.expires).toISOString();
      }
      if (change.rateLimit !== undefined) sub.rate_limit = change.rateLimit;
      sub.updated_at = now.toISOString();
      return { sub: { ...sub }, accountId: account.id, organisationId: member.organisation_id };
    });
    if (by) {
      const { status, expires_at, rate_limit } = changed.sub;
      await this.audit.record({
        event: 'subscription_changed',
        ...by,
        account_id: changed.accountId,
        email: normalised,
        organisation_id: changed.organisationId,
        subscription: { status, expires_at, rate_limit },
        reason: 'operator_override',
      });
    }
    return changed.sub;
  }

  private reindex(): void {
    const { accounts, members, organisations, subscriptions } = this.store.current;
    // An address stored before today's normalisation (`a@b.example.`, with its trailing dot) is found by its normal
    // form; an account stored exactly in that form wins over it.
    this.byEmail = new Map();
    for (const a of accounts) {
      const key = normaliseEmail(a.email);
      if (a.email === key || !this.byEmail.has(key)) this.byEmail.set(key, a);
    }
    this.byId = new Map(accounts.map((a) => [a.id, a]));
    this.memberByAccount = new Map(members.map((m) => [m.account_id, m]));
    this.organisationById = new Map(organisations.map((o) => [o.id, o]));
    this.subscriptionByOrganisation = new Map(subscriptions.map((s) => [s.organisation_id, s]));
    this.subscriptionById = new Map(subscriptions.map((s) => [s.id, s]));
  }
}

function checkedEmail(email: string): string {
  const normalised = normaliseEmail(email);
  if (emailAddressProblem(normalised) !== null) {
    throw new AccountError('invalid_email', `Not an email address: ${email}`);
  }
  return normalised;
}

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ContractError('weak_password');
  }
}

function memberIn(data: AccountsFile, organisationId: string, accountId: string): Member {
  const member = data.members.find((m) => m.account_id === accountId && m.organisation_id === organisationId);
  if (!member) throw new ContractError('member_not_found');
  return member;
}

function accountOf(data: AccountsFile, accountId: string): Account {
  const account = data.accounts.find((a) => a.id === accountId);
  if (!account) throw new ContractError('member_not_found');
  return account;
}

/** Refuses a change that would leave `organisationId` without an owner once `accountId` is no longer one. */
function keepAnOwner(data: AccountsFile, organisationId: string, accountId: string): void {
  const others = data.members.filter(
    (m) => m.organisation_id === organisationId && m.role === 'owner' && m.account_id !== accountId,
  );
  if (others.length === 0) throw new ContractError('last_owner');
}
