import type { DocumentDeclaration } from '../storage/document';
import { AccountsFile, accountsToOrganisations } from './account-store';

/**
 * Accounts, organisations, their members and subscriptions: DATA_DIR/accounts.json, or the tables `accounts`,
 * `organisations`, `members` and `subscriptions`.
 */
export const accountsDocument: DocumentDeclaration<AccountsFile> = {
  name: 'accounts',
  file: 'accounts.json',
  schema: AccountsFile,
  version: 2,
  migrations: { 1: accountsToOrganisations },
  defaults: () => ({ accounts: [], organisations: [], members: [], subscriptions: [] }),
  postgres: () => import('./postgres-account-store').then((m) => m.accountsCodec),
};
