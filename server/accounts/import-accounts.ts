import { readStoreFile, type FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted } from '../storage/import/import-rows';
import { anyInserted } from '../storage/postgres/table-count';
import { type AccountsFile } from './account-records';
import {
  ACCOUNTS,
  BILLING_EVENTS,
  EMAIL_VERIFICATIONS,
  INVITATIONS,
  MEMBERS,
  ORGANISATIONS,
  PASSWORD_RESETS,
  SUBSCRIPTIONS,
} from './account-tables';
import { accountsDocument } from './accounts-document';
import { screenAccounts } from './import-accounts-screen';

/**
 * accounts.json (upgraded to organisations when older) into `accounts`, `organisations`, `members`, `subscriptions`,
 * `invitations`, `password_resets`, `email_verifications` and `billing_events`, parents first, each left alone when the database has its key. An email that
 * differs only in case from another account's in the database is an error naming it (accounts_email_unique), not a
 * skip; what the service would refuse today is left out and reported (screenAccounts). Expired links
 * are copied as they are: the server's next write or purge drops them, as it would have in DATA_DIR.
 */
export const accountsImporter: FeatureImporter<
  AccountsFile,
  Pick<
    ImportCounts,
    | 'accounts'
    | 'organisations'
    | 'members'
    | 'subscriptions'
    | 'invitations'
    | 'passwordResets'
    | 'emailVerifications'
    | 'billingEvents'
  >
> = {
  document: accountsDocument.name,

  read: readStoreFile(accountsDocument, accountsDocument.defaults()),

  async write(client, snapshot, skips) {
    const file = screenAccounts(snapshot, skips);
    const accounts = await step('accounts', () => insertCounted(client, ACCOUNTS, file.accounts));
    const organisations = await step('organisations', () => insertCounted(client, ORGANISATIONS, file.organisations));
    const members = await step('members', () => insertCounted(client, MEMBERS, file.members));
    const subscriptions = await step('subscriptions', () => insertCounted(client, SUBSCRIPTIONS, file.subscriptions));
    const invitations = await step('invitations', () => insertCounted(client, INVITATIONS, file.invitations));
    const passwordResets = await step('password resets', () =>
      insertCounted(client, PASSWORD_RESETS, file.password_resets),
    );
    const emailVerifications = await step('e-mail verifications', () =>
      insertCounted(client, EMAIL_VERIFICATIONS, file.email_verifications),
    );
    const billingEvents = await step('billing events', () =>
      insertCounted(client, BILLING_EVENTS, file.billing_events),
    );
    const counts = {
      accounts,
      organisations,
      members,
      subscriptions,
      invitations,
      passwordResets,
      emailVerifications,
      billingEvents,
    };
    return { counts, changed: anyInserted(...Object.values(counts)) };
  },
};
