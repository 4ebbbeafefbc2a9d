import { diffRows, recordTable, writeDiff, type Queryable } from '../storage/postgres/rows';
import { AccountsFile, type Account, type Subscription } from './account-store';
import type { TableCodec } from '../storage/document';

/** The table `accounts` as account records (exported for the JSON import, which fills it with the same columns). */
export const ACCOUNTS = recordTable<Account>({
  table: 'accounts',
  label: 'account',
  key: 'id',
  ordered: true,
  columns: [
    { name: 'id', type: 'text' },
    { name: 'email', type: 'text' },
    { name: 'password_hash', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
  ],
});

export const SUBSCRIPTIONS = recordTable<Subscription>({
  table: 'subscriptions',
  label: 'subscription',
  key: 'id',
  ordered: true,
  columns: [
    { name: 'id', type: 'text' },
    { name: 'account_id', type: 'text' },
    { name: 'plan', type: 'text' },
    { name: 'status', type: 'text' },
    { name: 'expires_at', type: 'timestamptz', nullable: true },
    { name: 'rate_limit', type: 'integer' },
    { name: 'updated_at', type: 'timestamptz' },
  ],
});

const byId = (record: { id: string }) => record.id;

/** accounts.json as the tables `accounts` and `subscriptions`, each in the order of its array. */
export const accountsCodec: TableCodec<AccountsFile> = {
  async load(client: Queryable): Promise<AccountsFile> {
    const accounts = await client.query(`SELECT ${ACCOUNTS.select} FROM accounts ORDER BY position, id`);
    const subscriptions = await client.query(`SELECT ${SUBSCRIPTIONS.select} FROM subscriptions ORDER BY position, id`);
    return {
      accounts: accounts.rows.map(ACCOUNTS.fromRow),
      subscriptions: subscriptions.rows.map(SUBSCRIPTIONS.fromRow),
    };
  },

  async save(client: Queryable, before: AccountsFile, after: AccountsFile): Promise<void> {
    const accounts = diffRows(before.accounts, after.accounts, byId);
    // Accounts first: a new subscription refers to its account, and a removed account takes its rows with it.
    await writeDiff(client, ACCOUNTS, accounts, byId, ACCOUNTS.toRow, after.accounts);
    await writeDiff(
      client,
      SUBSCRIPTIONS,
      diffRows(before.subscriptions, after.subscriptions, byId),
      byId,
      SUBSCRIPTIONS.toRow,
      after.subscriptions,
    );
    // Removing an account also removes its keys (ON DELETE CASCADE), which the keys document holds: it is told so.
    if (accounts.deleted.length > 0) {
      await client.query("UPDATE data_version SET version = version + 1, changed_at = now() WHERE name = 'keys'");
    }
  },
};
