import { z } from 'zod';
import { DEFAULT_RATE_LIMIT, PLAN_NAME } from '../../shared/api/keys';
import type { DocumentStore } from '../storage/document-store';

export const Account = z.object({
  id: z.string().min(1),
  email: z.string().min(3),
  password_hash: z.string().min(1),
  created_at: z.string(),
});
export type Account = z.infer<typeof Account>;

export const Subscription = z.object({
  id: z.string().min(1),
  account_id: z.string().min(1),
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
  subscriptions: z.array(Subscription),
});
export type AccountsFile = z.infer<typeof AccountsFile>;

/** Where accounts and their subscriptions are kept: what AccountService depends on. */
export type AccountStore = DocumentStore<AccountsFile>;
