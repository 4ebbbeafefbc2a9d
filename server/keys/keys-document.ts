import path from 'node:path';
import type { DocumentDeclaration } from '../storage/document';
import { archiveOldRevokedKeys } from './key-archive';
import { KeysFile } from './key-records';

/** API keys and the key action counts: DATA_DIR/keys.json, or the tables `api_keys` and `key_actions`. */
export const keysDocument: DocumentDeclaration<KeysFile> = {
  name: 'keys',
  file: 'keys.json',
  schema: KeysFile,
  version: 1,
  defaults: () => ({ keys: [], key_actions: {} }),
  // Revoked records beyond the most recent per account move to keys-archive.jsonl (key-archive.ts).
  maintain: (dataDir) => archiveOldRevokedKeys(path.join(dataDir, 'keys-archive.jsonl')),
  postgres: () => import('./key-tables').then((m) => m.keysCodec),
};
