import { diffRows, recordTable, timestampIn, timestampOut, writeDiff, type Queryable } from '../storage/postgres/rows';
import { KEEP_REVOKED_PER_SUBSCRIPTION, revokedBeyond } from './key-archive';
import { KeysFile, type ApiKeyRecord } from './key-records';
import type { TableCodec } from '../storage/document';

/** The table `api_keys` as key records (exported for the JSON import, which fills it, and its tests, which read it). */
export const API_KEYS = recordTable<ApiKeyRecord>({
  table: 'api_keys',
  label: 'key',
  key: 'id',
  ordered: true,
  columns: [
    { name: 'id', type: 'text' },
    { name: 'account_id', type: 'text' },
    { name: 'subscription_id', type: 'text' },
    { name: 'key_hash', type: 'text', field: 'hash' },
    { name: 'key_prefix', type: 'text', field: 'prefix' },
    { name: 'status', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'revoked_at', type: 'timestamptz', nullable: true },
    { name: 'last_used_at', type: 'timestamptz', nullable: true },
  ],
});

// Every active key, and each subscription's newest revoked ones: what keys.json keeps (the rest is its archive's).
const LOAD_KEYS_SQL = `
  SELECT ${API_KEYS.select}
  FROM (
    SELECT *, row_number() OVER (PARTITION BY subscription_id, status ORDER BY position DESC, id DESC) AS newest
    FROM api_keys
  ) k
  WHERE status = 'active' OR newest <= $1
  ORDER BY position, id`;

const byId = (record: { id: string }) => record.id;

/**
 * The key action times as a load gives them: accounts in id order, none without a time (an account is rows, and no
 * row is no account), so that the copy a write leaves in memory is the one every other process loads.
 */
function sortedActions(times: KeysFile['key_actions']): KeysFile['key_actions'] {
  return Object.fromEntries(
    Object.entries(times)
      .filter(([, list]) => list.length > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/**
 * Writes an account's changed key action times as the few rows that changed. The rows of an account, in id order,
 * are its list; a new list is written as what it keeps of the old one, in order (the times that left the window
 * are deleted, by their place in the list), followed by new rows.
 */
async function saveKeyActions(client: Queryable, before: KeysFile['key_actions'], after: KeysFile['key_actions']) {
  const removed: { account: string; index: number }[] = [];
  const added: { account: string; at: string }[] = [];
  for (const account of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const old = before[account] ?? [];
    const now = after[account] ?? [];
    let kept = 0;
    old.forEach((at, index) => {
      if (kept < now.length && now[kept] === at) kept++;
      else removed.push({ account, index });
    });
    for (const at of now.slice(kept)) added.push({ account, at: timestampIn(at, 'key action time') });
  }
  if (removed.length > 0) {
    await client.query(
      `DELETE FROM key_actions k
       USING (SELECT id, account_id, row_number() OVER (PARTITION BY account_id ORDER BY id) - 1 AS index
              FROM key_actions WHERE account_id = ANY($1::text[])) listed,
             unnest($1::text[], $2::integer[]) AS gone(account_id, index)
       WHERE k.id = listed.id AND listed.account_id = gone.account_id AND listed.index = gone.index`,
      [removed.map((r) => r.account), removed.map((r) => r.index)],
    );
  }
  if (added.length > 0) {
    await client.query(
      `INSERT INTO key_actions (account_id, at)
       SELECT v.account_id, v.at FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS v(account_id, at, n)
       ORDER BY v.n`,
      [added.map((a) => a.account), added.map((a) => a.at)],
    );
  }
}

/**
 * keys.json as the tables `api_keys` and `key_actions`. The table keeps every key ever issued; the document holds
 * the active keys and each subscription's KEEP_REVOKED_PER_SUBSCRIPTION newest revoked ones, as keys.json does with its archive,
 * so that the usage flush and every key change stay small. Rows the document does not hold are never written.
 */
export const keysCodec: TableCodec<KeysFile> = {
  async load(client: Queryable): Promise<KeysFile> {
    const keys = await client.query(LOAD_KEYS_SQL, [KEEP_REVOKED_PER_SUBSCRIPTION]);
    const actions = await client.query('SELECT account_id, at FROM key_actions ORDER BY id');
    const keyActions: KeysFile['key_actions'] = {};
    for (const r of actions.rows) (keyActions[r.account_id as string] ??= []).push(timestampOut(r.at));
    return {
      keys: keys.rows.map(API_KEYS.fromRow),
      key_actions: sortedActions(keyActions),
    };
  },

  async save(client: Queryable, before: KeysFile, after: KeysFile): Promise<void> {
    await writeDiff(client, API_KEYS, diffRows(before.keys, after.keys, byId), byId, API_KEYS.toRow, after.keys);
    await saveKeyActions(client, before.key_actions, after.key_actions);
  },

  retained(written: KeysFile): KeysFile {
    const old = new Set(revokedBeyond(written.keys, KEEP_REVOKED_PER_SUBSCRIPTION).map((k) => k.id));
    return {
      ...written,
      keys: old.size === 0 ? written.keys : written.keys.filter((k) => !old.has(k.id)),
      key_actions: sortedActions(written.key_actions),
    };
  },
};
