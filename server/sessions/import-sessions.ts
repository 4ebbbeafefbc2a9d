import path from 'node:path';
import type { FeatureImporter } from '../storage/import/feature-importer';
import { step } from '../storage/import/import-error';
import type { ImportCounts } from '../storage/import/import-report';
import { insertCounted } from '../storage/import/import-rows';
import { SchemaJsonFile } from '../storage/json-store';
import { anyInserted } from '../storage/postgres/table-count';
import { SESSION_COLUMNS } from './postgres-session-store';
import { SessionsFile } from './session-store';

/**
 * sessions.json into `sessions`, each left alone when the database has its sid_hash: the people signed in on the
 * JSON server stay signed in. Schema 1 has no data_version counter `sessions` (the table is read per request); it is
 * bumped if one exists.
 */
export const sessionsImporter: FeatureImporter<SessionsFile, Pick<ImportCounts, 'sessions'>> = {
  document: 'sessions',

  /** sessions.json checked by its schema: SchemaJsonFile only reads, and needs no server options as FileSessionStore. */
  async read(dataDir) {
    const reader = new SchemaJsonFile<SessionsFile>({
      file: path.join(dataDir, 'sessions.json'),
      schema: SessionsFile,
      version: 1,
      defaults: () => ({ sessions: {} }),
    });
    return reader.read();
  },

  async write(client, file, skips) {
    // The sessions of an account left out go with it.
    const kept = Object.entries(file.sessions).filter(([, s]) => !skips.isLeftOut('account', s.account_id));
    const rows = kept.map(([sid_hash, s]) => ({
      sid_hash,
      account_id: s.account_id,
      created_at: s.created_at,
      last_seen_at: s.last_seen_at,
      cookie: s.cookie,
    }));
    const target = { table: 'sessions', key: 'sid_hash', columns: SESSION_COLUMNS };
    const sessions = await step('sessions', () => insertCounted(client, target, rows));
    return { counts: { sessions }, changed: anyInserted(sessions) };
  },
};
