import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted } from '../storage/import/import-rows';
import { anyInserted } from '../storage/postgres/table-count';
import { type AccountsFile } from './account-store';
import { ACCOUNTS, SUBSCRIPTIONS } from './postgres-account-store';
import { accountsDocument } from './accounts-document';

/**
 * accounts.json into `accounts` and `subscriptions`, accounts first (a subscription refers to its account), each
 * left alone when the database has its id. An email that differs only in case from another account's is an error
 * naming it (accounts_email_unique), not a skip.
 */
export const accountsImporter: FeatureImporter<AccountsFile, Pick<ImportCounts, 'accounts' | 'subscriptions'>> = {
  document: accountsDocument.name,

  read: readStoreFile(accountsDocument, { accounts: [], subscriptions: [] }),

  async write(client, file) {
    const accounts = await step('accounts', () => insertCounted(client, ACCOUNTS, file.accounts));
    const subscriptions = await step('subscriptions', () => insertCounted(client, SUBSCRIPTIONS, file.subscriptions));
    return { counts: { accounts, subscriptions }, changed: anyInserted(accounts, subscriptions) };
  },
};
