import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PoolClient } from 'pg';
import { redactKeys } from '../audit/audit-log';
import { readStore, type FeatureImporter } from '../storage/import/feature-importer';
import { ImportError, problems, step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted, loadTemporary } from '../storage/import/import-rows';
import type { ImportSkips } from '../storage/import/import-skips';
import { anyInserted, tableCount, type TableCount } from '../storage/postgres/table-count';
import { ApiKeyRecord, type KeysFile } from './key-records';
import { keysDocument } from './keys-document';
import { API_KEYS } from './key-tables';

/** What DATA_DIR holds of the keys. */
export interface KeysSnapshot {
  keys: KeysFile;
  /** Records of keys-archive.jsonl whose id is not in keys.json (an id's first line). */
  archivedKeys: ApiKeyRecord[];
}

/**
 * keys.json and keys-archive.jsonl into `api_keys` (the archive's older keys first, so that document positions keep
 * their order), then keys.json's key action times into `key_actions`. A second active key of an account, or a key
 * hash in use, is an error naming the record, not a skip.
 */
export const keysImporter: FeatureImporter<KeysSnapshot, Pick<ImportCounts, 'apiKeys' | 'keyActions'>> = {
  document: keysDocument.name,

  async read(dataDir) {
    // Opening the key store may move old revoked records to the archive (its upkeep): read the archive after it.
    const keys = (await readStore(dataDir, keysDocument)) ?? { keys: [], key_actions: {} };
    const inKeysFile = new Set(keys.keys.map((k) => k.id));
    const archivedKeys = (await readKeyArchive(path.join(dataDir, 'keys-archive.jsonl'))).filter(
      (k) => !inKeysFile.has(k.id),
    );
    for (const key of [...keys.keys, ...archivedKeys]) {
      if ((key.status === 'revoked') !== (key.revoked_at !== null)) {
        throw new ImportError(`API key ${key.id}: status ${key.status} but revoked_at ${key.revoked_at ?? 'null'}`);
      }
    }
    return { keys, archivedKeys };
  },

  async write(client, { keys, archivedKeys }, skips) {
    // Anything that looks like a whole key is cut to its prefix (redactKeys, as the audit trails do), here and in the
    // audit events, so that not even a file written by some buggy release can put a key into the database. A key of
    // a subscription left out stays out; one whose creator was left out stays its organisation's, with no creator.
    const records = [...archivedKeys, ...keys.keys]
      .filter((k) => !skips.isLeftOut('subscription', k.subscription_id))
      .map((k) => ({
        ...k,
        account_id: skips.isLeftOut('account', k.account_id) ? null : k.account_id,
        prefix: redactKeys(k.prefix),
      }));
    const apiKeys = await step('api keys', () => insertCounted(client, API_KEYS, records));
    const keyActions = await step('key actions', () => insertKeyActions(client, keys, skips));
    return {
      counts: { apiKeys: { ...apiKeys, fromArchive: archivedKeys.length }, keyActions },
      changed: anyInserted(apiKeys, keyActions),
    };
  },
};

/** keys-archive.jsonl: one ApiKeyRecord a line; an id's first line counts; a line torn by a crash is skipped. */
async function readKeyArchive(file: string): Promise<ApiKeyRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const seen = new Set<string>();
  const records: ApiKeyRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return; // a line torn by a crash mid-append
    }
    const parsed = ApiKeyRecord.safeParse(raw);
    if (!parsed.success) {
      throw new ImportError(`${file} line ${i + 1} is not an API key record: ${problems(parsed.error)}`);
    }
    if (seen.has(parsed.data.id)) return;
    seen.add(parsed.data.id);
    records.push(parsed.data);
  });
  return records;
}

/**
 * Key actions have no id of their own: an (account, time) pair the file holds n times is inserted as often as the
 * table holds it fewer than n times.
 */
async function insertKeyActions(client: PoolClient, file: KeysFile, skips: ImportSkips): Promise<TableCount> {
  const rows = Object.entries(file.key_actions)
    .filter(([account_id]) => !skips.isLeftOut('account', account_id))
    .flatMap(([account_id, times]) => times.map((at) => ({ account_id, at })));
  if (rows.length === 0) return tableCount(0, 0);
  await loadTemporary(client, 'import_key_actions', 'account_id text NOT NULL, at timestamptz NOT NULL', rows);
  const { rowCount } = await client.query(`
    WITH src AS (
      SELECT i.ord, i.account_id, i.at, row_number() OVER (PARTITION BY i.account_id, i.at ORDER BY i.ord) AS n
        FROM import_key_actions i
    ), present AS (
      SELECT k.account_id, k.at, count(*) AS c
        FROM key_actions k JOIN (SELECT DISTINCT account_id FROM import_key_actions) a USING (account_id)
       GROUP BY k.account_id, k.at
    )
    INSERT INTO key_actions (account_id, at)
    SELECT src.account_id, src.at
      FROM src LEFT JOIN present USING (account_id, at)
     WHERE src.n > coalesce(present.c, 0)
     ORDER BY src.ord`);
  return tableCount(rows.length, rowCount ?? 0);
}
