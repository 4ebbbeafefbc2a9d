import type { DocumentDeclaration } from '../storage/document';
import { AccountsFile } from './account-store';

/** Accounts and their subscriptions: DATA_DIR/accounts.json, or the tables `accounts` and `subscriptions`. */
export const accountsDocument: DocumentDeclaration<AccountsFile> = {
  name: 'accounts',
  file: 'accounts.json',
  schema: AccountsFile,
  version: 1,
  defaults: () => ({ accounts: [], subscriptions: [] }),
  postgres: () => import('./postgres-account-store').then((m) => m.accountsCodec),
};
