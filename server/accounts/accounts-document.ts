import type { DocumentDeclaration } from '../storage/document';
import { AccountsFile, accountsToOrganisations } from './account-records';

/**
 * Accounts, organisations, their members and subscriptions, pending invitations, password resets and e-mail
 * verifications, and the Stripe events applied: DATA_DIR/accounts.json, or the tables `accounts`, `organisations`,
 * `members`, `subscriptions`, `invitations`, `password_resets`, `email_verifications` and `billing_events`.
 */
export const accountsDocument: DocumentDeclaration<AccountsFile> = {
  name: 'accounts',
  file: 'accounts.json',
  schema: AccountsFile,
  version: 2,
  migrations: { 1: accountsToOrganisations },
  defaults: () => ({
    accounts: [],
    organisations: [],
    members: [],
    subscriptions: [],
    invitations: [],
    password_resets: [],
    email_verifications: [],
    billing_events: [],
  }),
  postgres: () => import('./account-tables').then((m) => m.accountsCodec),
};
