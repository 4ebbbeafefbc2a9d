import { diffRows, recordTable, writeDiff, type Queryable, type RecordTable } from '../storage/postgres/rows';
import {
  AccountsFile,
  type Account,
  type BillingEvent,
  type EmailVerification,
  type Invitation,
  type Member,
  type Organisation,
  type PasswordReset,
  type Subscription,
} from './account-records';
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
    { name: 'email_verified_at', type: 'timestamptz', nullable: true },
  ],
});

export const ORGANISATIONS = recordTable<Organisation>({
  table: 'organisations',
  label: 'organisation',
  key: 'id',
  ordered: true,
  columns: [
    { name: 'id', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
  ],
});

export const MEMBERS = recordTable<Member>({
  table: 'members',
  label: 'member',
  // One membership per account (members.account_id is UNIQUE).
  key: 'account_id',
  ordered: true,
  columns: [
    { name: 'organisation_id', type: 'text' },
    { name: 'account_id', type: 'text' },
    { name: 'role', type: 'text' },
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
    { name: 'organisation_id', type: 'text' },
    { name: 'plan', type: 'text' },
    { name: 'status', type: 'text' },
    { name: 'expires_at', type: 'timestamptz', nullable: true },
    { name: 'rate_limit', type: 'integer' },
    { name: 'updated_at', type: 'timestamptz' },
    { name: 'stripe_customer_id', type: 'text' },
    { name: 'stripe_subscription_id', type: 'text' },
    { name: 'stripe_status', type: 'text' },
    { name: 'current_period_end', type: 'timestamptz', nullable: true },
    { name: 'cancel_at_period_end', type: 'boolean' },
    { name: 'ended_reason', type: 'text' },
    { name: 'stripe_synced_at', type: 'timestamptz', nullable: true },
  ],
});

export const INVITATIONS = recordTable<Invitation>({
  table: 'invitations',
  label: 'invitation',
  key: 'id',
  ordered: true,
  columns: [
    { name: 'id', type: 'text' },
    { name: 'organisation_id', type: 'text' },
    { name: 'email', type: 'text' },
    { name: 'role', type: 'text' },
    { name: 'token_hash', type: 'text' },
    { name: 'invited_by', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'expires_at', type: 'timestamptz' },
  ],
});

export const PASSWORD_RESETS = recordTable<PasswordReset>({
  table: 'password_resets',
  label: 'password reset',
  key: 'id',
  ordered: true,
  columns: [
    { name: 'id', type: 'text' },
    { name: 'account_id', type: 'text' },
    { name: 'token_hash', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'expires_at', type: 'timestamptz' },
  ],
});

export const EMAIL_VERIFICATIONS = recordTable<EmailVerification>({
  ...PASSWORD_RESETS,
  table: 'email_verifications',
  label: 'e-mail verification',
});

export const BILLING_EVENTS = recordTable<BillingEvent>({
  table: 'billing_events',
  label: 'billing event',
  key: 'id',
  ordered: true,
  columns: [
    { name: 'id', type: 'text' },
    { name: 'type', type: 'text' },
    { name: 'organisation_id', type: 'text' },
    { name: 'received_at', type: 'timestamptz' },
  ],
});

const byId = (record: { id: string }) => record.id;
const byAccount = (record: { account_id: string }) => record.account_id;

/**
 * accounts.json as the tables `accounts`, `organisations`, `members`, `subscriptions`, `invitations`,
 * `password_resets`, `email_verifications` and `billing_events`, each in its array's order.
 */
export const accountsCodec: TableCodec<AccountsFile> = {
  async load(client: Queryable): Promise<AccountsFile> {
    // One after the other: a transaction's client runs one query at a time.
    const rows = async <R>(table: RecordTable<R>) =>
      (await client.query(`SELECT ${table.select} FROM ${table.table} ORDER BY position, ${table.key}`)).rows.map(
        table.fromRow,
      );
    return {
      accounts: await rows(ACCOUNTS),
      organisations: await rows(ORGANISATIONS),
      members: await rows(MEMBERS),
      subscriptions: await rows(SUBSCRIPTIONS),
      invitations: await rows(INVITATIONS),
      password_resets: await rows(PASSWORD_RESETS),
      email_verifications: await rows(EMAIL_VERIFICATIONS),
      billing_events: await rows(BILLING_EVENTS),
    };
  },

  async save(client: Queryable, before: AccountsFile, after: AccountsFile): Promise<void> {
    /** Writes what changed in one array of the document to its table; returns the difference. */
    const write = async <R>(table: RecordTable<R>, keyOf: (record: R) => string, was: R[], is: R[]) => {
      const diff = diffRows(was, is, keyOf);
      await writeDiff(client, table, diff, keyOf, table.toRow, is);
      return diff;
    };
    // Parents first: a new member, subscription, invitation or reset refers to its account or organisation, and a
    // removed one takes its rows with it (ON DELETE CASCADE).
    const accounts = await write(ACCOUNTS, byId, before.accounts, after.accounts);
    const organisations = await write(ORGANISATIONS, byId, before.organisations, after.organisations);
    await write(MEMBERS, byAccount, before.members, after.members);
    await write(SUBSCRIPTIONS, byId, before.subscriptions, after.subscriptions);
    await write(INVITATIONS, byId, before.invitations, after.invitations);
    await write(PASSWORD_RESETS, byId, before.password_resets, after.password_resets);
    await write(EMAIL_VERIFICATIONS, byId, before.email_verifications, after.email_verifications);
    await write(BILLING_EVENTS, byId, before.billing_events, after.billing_events);
    // A removed account clears its keys' account_id and takes its key actions; a removed organisation takes its keys
    // (ON DELETE): the keys document holds them, and is told so.
    if (accounts.deleted.length > 0 || organisations.deleted.length > 0) {
      await client.query("UPDATE data_version SET version = version + 1, changed_at = now() WHERE name = 'keys'");
    }
  },
};
