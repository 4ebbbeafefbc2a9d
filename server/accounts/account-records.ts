import { z } from 'zod';
import { DEFAULT_RATE_LIMIT, PLAN_NAME } from '../../shared/api/keys';
import { Role } from '../../shared/api/team';
import type { DocumentStore } from '../storage/document-store';

export const Account = z.object({
  id: z.string().min(1),
  email: z.string().min(3),
  password_hash: z.string().min(1),
  created_at: z.string(),
  /**
   * When the account proved it receives mail at `email` (a sign-up's verification link, an invitation or a reset link
   * used); null = not proved. Accounts from before sign-up existed read as null.
   */
  email_verified_at: z.string().nullable().default(null),
});
export type Account = z.infer<typeof Account>;

/** A practice: the subscription, the key, the catchment and the webhook are its; people are its members. */
export const Organisation = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  created_at: z.string(),
});
export type Organisation = z.infer<typeof Organisation>;

/** An account's place in an organisation. An account belongs to one organisation. */
export const Member = z.object({
  organisation_id: z.string().min(1),
  account_id: z.string().min(1),
  role: Role,
  created_at: z.string(),
});
export type Member = z.infer<typeof Member>;

export const Subscription = z.object({
  id: z.string().min(1),
  organisation_id: z.string().min(1),
  plan: z.literal(PLAN_NAME),
  status: z.enum(['active', 'inactive']),
  /** The first instant the subscription no longer counts as active; null = no end date. */
  expires_at: z.string().nullable(),
  rate_limit: z.number().int().positive().default(DEFAULT_RATE_LIMIT),
  updated_at: z.string(),
  // Billing with Stripe (STRIPE_* set): what Stripe last said of the subscription paying for this one. All null for a
  // subscription the operator sets (and for records from before billing existed).
  /** Stripe's customer (cus_…) for this organisation, once a checkout made one. */
  stripe_customer_id: z.string().nullable().default(null),
  /** Stripe's subscription (sub_…) paying for this one. */
  stripe_subscription_id: z.string().nullable().default(null),
  /** Stripe's own status of it: active, trialing, past_due, canceled, unpaid, incomplete, incomplete_expired, paused. */
  stripe_status: z.string().nullable().default(null),
  /** The end of the period paid for (renewal, or the end when cancelling at period end). */
  current_period_end: z.string().nullable().default(null),
  /** Whether it stops at current_period_end instead of renewing. */
  cancel_at_period_end: z.boolean().default(false),
  /** Why access ended or ends (shared/api/billing.ts's AccessEndedReason); null while it simply runs. */
  ended_reason: z.string().nullable().default(null),
  /**
   * When Stripe was last read for this subscription (the read's start): an older read arriving later (two webhook
   * deliveries racing) never overwrites a newer one.
   */
  stripe_synced_at: z.string().nullable().default(null),
});
export type Subscription = z.infer<typeof Subscription>;

/**
 * A pending invitation to join an organisation with a role. Only the SHA-256 of its link's token is kept; accepting it
 * or revoking it removes the record (the link is dead either way), and so does its expiry (purged on the next write).
 */
export const Invitation = z.object({
  id: z.string().min(1),
  organisation_id: z.string().min(1),
  email: z.string().min(3),
  role: Role,
  /** SHA-256 of the link's token, hex. */
  token_hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The inviting member's email (kept as text: the invitation outlives their account); null for the operator. */
  invited_by: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type Invitation = z.infer<typeof Invitation>;

/** A password-reset link's token (its SHA-256 only): at most one per account, removed when used or expired. */
export const PasswordReset = z.object({
  id: z.string().min(1),
  account_id: z.string().min(1),
  token_hash: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.string(),
  expires_at: z.string(),
});
export type PasswordReset = z.infer<typeof PasswordReset>;

/** An e-mail verification link's token (its SHA-256 only): at most one per account, removed when used or expired. */
export const EmailVerification = PasswordReset.extend({});
export type EmailVerification = z.infer<typeof EmailVerification>;

/**
 * A Stripe event already applied (its id): a second delivery of it changes nothing and audits nothing. Kept 30 days,
 * well past Stripe's three days of retries; purged on the next write.
 */
export const BillingEvent = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  organisation_id: z.string().nullable(),
  received_at: z.string(),
});
export type BillingEvent = z.infer<typeof BillingEvent>;

/**
 * accounts.json. The invitations and password resets live here (not in a file of their own) so that accepting an
 * invitation creates the account and its membership and uses the invitation in one atomic update. They default to
 * none: a schema-2 file from before them reads as it is, with nothing to migrate.
 */
export const AccountsFile = z.object({
  accounts: z.array(Account),
  organisations: z.array(Organisation),
  members: z.array(Member),
  subscriptions: z.array(Subscription),
  invitations: z.array(Invitation).default([]),
  password_resets: z.array(PasswordReset).default([]),
  email_verifications: z.array(EmailVerification).default([]),
  billing_events: z.array(BillingEvent).default([]),
});
export type AccountsFile = z.infer<typeof AccountsFile>;

/** The organisation an account founded when accounts were their own practice (schema 1), and by migration 0010. */
export const foundedOrganisationId = (accountId: string) => `org-${accountId}`;

/**
 * Schema 1 → 2: each account was its own practice. It becomes the owner of an organisation named after its email,
 * which takes over the account's subscription. Deterministic, so that reading the same old file twice (the JSON
 * import reads without writing) gives the same ids, and PostgreSQL's migration 0010 gives the same ones too.
 */
export function accountsToOrganisations(body: Record<string, unknown>): Record<string, unknown> {
  const accounts = (body.accounts ?? []) as { id: string; email: string; created_at: string }[];
  const subscriptions = (body.subscriptions ?? []) as ({ account_id?: string } & Record<string, unknown>)[];
  return {
    ...body,
    organisations: accounts.map((a) => ({ id: foundedOrganisationId(a.id), name: a.email, created_at: a.created_at })),
    members: accounts.map((a) => ({
      organisation_id: foundedOrganisationId(a.id),
      account_id: a.id,
      role: 'owner',
      created_at: a.created_at,
    })),
    subscriptions: subscriptions.map(({ account_id, ...rest }) => ({
      ...rest,
      organisation_id: foundedOrganisationId(String(account_id)),
    })),
  };
}

/** Where accounts, organisations and their subscriptions are kept: what AccountService depends on. */
export type AccountStore = DocumentStore<AccountsFile>;
