import { z } from 'zod';
import { DEFAULT_RATE_LIMIT, PLAN_NAME } from '../../shared/api/keys';
import { Role } from '../../shared/api/team';
import type { DocumentStore } from '../storage/document-store';

export const Account = z.object({
  id: z.string().min(1),
  email: z.string().min(3),
  password_hash: z.string().min(1),
  created_at: z.string(),
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
});
export type Subscription = z.infer<typeof Subscription>;

export const AccountsFile = z.object({
  accounts: z.array(Account),
  organisations: z.array(Organisation),
  members: z.array(Member),
  subscriptions: z.array(Subscription),
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
